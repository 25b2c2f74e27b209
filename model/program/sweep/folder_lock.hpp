#pragma once
// A folder's lock: flock on <folder>/.lock, tried without waiting. A sweep
// folder takes one so that one local sweep works in it at a time; a point's
// folder takes one while the point runs.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <filesystem>

namespace rnicsim::sweep {

class FolderLock {
 public:
  explicit FolderLock(const std::filesystem::path& folder) {
    fd_ = open((folder / ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ >= 0 && flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      close(fd_);
      fd_ = -1;
    }
  }
  ~FolderLock() {
    if (fd_ >= 0) close(fd_);
  }
  FolderLock(FolderLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;
  FolderLock& operator=(FolderLock&&) = delete;

  // False when another process holds it (or the lock file cannot be opened).
  bool held() const { return fd_ >= 0; }
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
};

}  // namespace rnicsim::sweep
