#pragma once
// Whole messages over the bridge's stream socket, for both of its ends (the
// application's library and the launcher): sendmsg and recvmsg only, which
// the application's library does not interpose, and an optional descriptor
// passed along (SCM_RIGHTS: a memfd of shared pages).
#include <sys/socket.h>
#include <sys/uio.h>

#include <cerrno>
#include <cstddef>
#include <cstring>

namespace rnicsim::bridge {

// False when the peer is gone.
inline bool send_exactly(int fd, const void* data, std::size_t bytes, int pass_fd = -1) {
  const auto* at = static_cast<const char*>(data);
  while (bytes > 0) {
    iovec io{const_cast<char*>(at), bytes};
    msghdr message{};
    message.msg_iov = &io;
    message.msg_iovlen = 1;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
    if (pass_fd >= 0) {
      message.msg_control = control;
      message.msg_controllen = sizeof control;
      cmsghdr* header = CMSG_FIRSTHDR(&message);
      header->cmsg_level = SOL_SOCKET;
      header->cmsg_type = SCM_RIGHTS;
      header->cmsg_len = CMSG_LEN(sizeof(int));
      std::memcpy(CMSG_DATA(header), &pass_fd, sizeof(int));
    }
    const ssize_t n = sendmsg(fd, &message, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    pass_fd = -1;  // sent with the first bytes
    at += n;
    bytes -= static_cast<std::size_t>(n);
  }
  return true;
}

// False when the peer is gone. A descriptor that came along goes to *passed_fd.
inline bool receive_exactly(int fd, void* data, std::size_t bytes, int* passed_fd = nullptr) {
  auto* at = static_cast<char*>(data);
  while (bytes > 0) {
    iovec io{at, bytes};
    msghdr message{};
    message.msg_iov = &io;
    message.msg_iovlen = 1;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    const ssize_t n = recvmsg(fd, &message, MSG_CMSG_CLOEXEC);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    for (cmsghdr* c = CMSG_FIRSTHDR(&message); c != nullptr; c = CMSG_NXTHDR(&message, c)) {
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS && passed_fd != nullptr) {
        std::memcpy(passed_fd, CMSG_DATA(c), sizeof(int));
      }
    }
    at += n;
    bytes -= static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace rnicsim::bridge
