#include "system/wire_capture.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>
#include <utility>

#include "common/time_units.hpp"

namespace rnicsim {
namespace {

// Why the last file operation failed, as strerror says it.
std::string last_error(const std::string& otherwise) {
  return errno != 0 ? std::strerror(errno) : otherwise;
}

}  // namespace

WireCapture::WireCapture(std::filesystem::path path) : path_(std::move(path)) {
  // The staging file goes beside the path, so that commit() is a rename;
  // a folder's name would put it inside the folder, and the rename would fail.
  const std::filesystem::path name = path_.filename();
  std::error_code ignored;
  if (name.empty() || name == "." || name == ".." ||
      std::filesystem::is_directory(path_, ignored)) {
    throw packet::PcapError(path_.string(), "is a folder, not a file");
  }
  staging_ = path_.string() + ".partial-" + std::to_string(getpid());
  errno = 0;
  try {
    writer_.emplace(staging_.string());
  } catch (const packet::PcapError&) {
    const std::string reason = last_error("cannot be written");
    std::filesystem::remove(staging_, ignored);
    const std::filesystem::path folder = path_.parent_path();
    throw packet::PcapError(path_.string(), "cannot create a file in " +
                                                (folder.empty() ? "." : folder.string()) + ": " +
                                                reason);
  }
}

WireCapture::~WireCapture() {
  if (committed_) return;
  writer_.reset();
  std::error_code ignored;
  std::filesystem::remove(staging_, ignored);
}

void WireCapture::tap(WireLink& wire) {
  wire.set_tap([this](const Transfer& frame, const sc_core::sc_time& first_bit) {
    record(frame, first_bit);
  });
}

void WireCapture::tap(MacPort& port) {
  port.add_tap([this](const Transfer& frame, const sc_core::sc_time& first_bit) {
    record(frame, first_bit);
  });
}

void WireCapture::record(const Transfer& frame, const sc_core::sc_time& first_bit) {
  // An item without bytes is a size on a wire that carries no frames (the
  // pipeline experiment's): nothing a capture could hold.
  if (!write_error_.empty() || !frame.bytes()) return;
  // No frame recorded from now on can have left before now.
  write_waiting(sim_now());
  waiting_.push_back(Waiting{first_bit, recorded_++, frame.bytes()});
  std::push_heap(waiting_.begin(), waiting_.end(), later);
}

void WireCapture::write_waiting(const sc_core::sc_time& before) {
  while (!waiting_.empty() && waiting_.front().first_bit < before && write_error_.empty()) {
    std::pop_heap(waiting_.begin(), waiting_.end(), later);
    const Waiting& next = waiting_.back();
    errno = 0;
    try {
      writer_->write(to_ps(next.first_bit) / 1000, next.bytes->data(), next.bytes->size());
    } catch (const packet::PcapError&) {
      write_error_ = last_error("write failed");
    }
    waiting_.pop_back();
  }
}

void WireCapture::commit() {
  // A frame booked to leave after the simulation stopped never left: the
  // wire would not have served it stage by stage.
  write_waiting(sim_now() + sc_core::sc_get_time_resolution());
  waiting_.clear();
  if (!write_error_.empty()) throw packet::PcapError(path_.string(), write_error_);
  writer_.reset();  // closes the file
  std::error_code error;
  std::filesystem::rename(staging_, path_, error);
  if (error) throw packet::PcapError(path_.string(), error.message());
  committed_ = true;
}

}  // namespace rnicsim
