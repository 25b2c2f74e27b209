#pragma once
// EgressScheduler: which of an egress port's eight class queues sends next
// (kernel-free). Classes in the strict set go first, highest class first;
// the others share what is left by deficit weighted round robin (Shreedhar
// and Varghese, "Efficient fair queuing using deficit round robin",
// SIGCOMM 1995): each visit adds weight x quantum bytes to a class's deficit,
// and it sends while its head frame fits in the deficit. A paused class is
// passed over, and so is an empty one; both lose their deficit.
#include <array>
#include <cstdint>

namespace rnicsim {

struct SchedulerConfig {
  std::uint8_t strict = 0;  // bit c: class c is served by strict priority
  std::array<std::uint32_t, 8> weights{1, 1, 1, 1, 1, 1, 1, 1};
  std::uint32_t quantum_bytes = 4096;
};

class EgressScheduler {
 public:
  explicit EgressScheduler(const SchedulerConfig& config) : config_(config) {}

  // The class to send from, given the bytes of each class's head frame (0:
  // the class is empty) and the paused classes; -1 when none may send. The
  // caller sends that class's head frame.
  int pick(const std::array<std::uint32_t, 8>& head_bytes, std::uint8_t paused);

 private:
  SchedulerConfig config_;
  std::array<std::uint64_t, 8> deficit_{};
  unsigned current_ = 0;  // the DWRR class being visited
  bool granted_ = false;  // whether it has had this visit's quantum
};

}  // namespace rnicsim
