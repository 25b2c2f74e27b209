#pragma once
// WireCapture: every frame a testbed's wires carry, in one pcap file, the way
// a tap on the cable would see it. Each frame is recorded as its sender puts
// it on the wire (without FCS, as the project's captures and Linux's hold
// frames), at the time its first bit leaves, in nanoseconds; frames of both
// directions interleave in time order. A wire may put a frame on the cable
// ahead of the kernel's time (a stage serving an item taken early), so frames
// wait in time order until the simulation has passed their time; those booked
// to leave after the simulation stopped are not written.
//
// Nothing half-written is left at the path: the frames go into a staging file
// beside it (PATH.partial-PID), which commit() moves into place once the run
// is complete and which is removed if the capture ends without a commit (a
// failed or interrupted run).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <systemc>
#include <vector>

#include "common/transfer.hpp"
#include "formats/pcap.hpp"
#include "wire/mac_port.hpp"
#include "wire/wire_link.hpp"

namespace rnicsim {

class WireCapture {
 public:
  // Creates the staging file; a PcapError (path, reason) if it cannot.
  explicit WireCapture(std::filesystem::path path);
  ~WireCapture();
  WireCapture(const WireCapture&) = delete;
  WireCapture& operator=(const WireCapture&) = delete;

  // Records every frame `wire` carries from now on. The capture must outlive
  // the simulation of the wire (the tap holds it).
  void tap(WireLink& wire);
  // Records every frame `port` sends (a MAC of a switched topology: a
  // frame crossing a switch is seen leaving the sender and each switch).
  void tap(MacPort& port);

  // Moves the capture to its path; a PcapError (path, reason) if a frame
  // could not be written or the file cannot be moved there.
  void commit();

  const std::filesystem::path& path() const { return path_; }
  // Frames written so far; every frame once committed.
  std::uint64_t frames() const { return writer_ ? writer_->records() : 0; }

 private:
  struct Waiting {
    sc_core::sc_time first_bit;
    std::uint64_t order;  // frames with the same time stay in the order they were recorded
    SharedBytes bytes;    // the frame's own: nothing changes a frame once it is on the wire
  };

  // The heap's order: the frame that left later (or was recorded later) sinks.
  static bool later(const Waiting& a, const Waiting& b) {
    return a.first_bit != b.first_bit ? a.first_bit > b.first_bit : a.order > b.order;
  }
  void record(const Transfer& frame, const sc_core::sc_time& first_bit);
  // Writes the waiting frames that left before `before`, in time order.
  void write_waiting(const sc_core::sc_time& before);

  std::filesystem::path path_;
  std::filesystem::path staging_;
  std::optional<packet::PcapWriter> writer_;
  std::string write_error_;  // the first write that failed; later frames are not written
  std::vector<Waiting> waiting_;  // a heap, earliest first
  std::uint64_t recorded_ = 0;
  bool committed_ = false;
};

}  // namespace rnicsim
