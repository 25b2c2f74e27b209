#include "switch/egress_scheduler.hpp"

namespace rnicsim {

int EgressScheduler::pick(const std::array<std::uint32_t, 8>& head_bytes, std::uint8_t paused) {
  const auto eligible = [&](unsigned c) { return head_bytes[c] != 0 && !((paused >> c) & 1u); };
  for (int c = 7; c >= 0; --c) {
    if (((config_.strict >> c) & 1u) && eligible(static_cast<unsigned>(c))) return c;
  }
  bool any = false;
  for (unsigned c = 0; c < 8; ++c) {
    if (!((config_.strict >> c) & 1u) && eligible(c)) any = true;
  }
  if (!any) return -1;
  // Each visit of an eligible class adds its quantum, so the loop ends once
  // a deficit has grown past its head frame.
  for (;;) {
    const unsigned c = current_;
    if (((config_.strict >> c) & 1u) || !eligible(c)) {
      deficit_[c] = 0;
    } else {
      if (!granted_) {
        deficit_[c] += std::uint64_t{config_.weights[c]} * config_.quantum_bytes;
        granted_ = true;
      }
      if (head_bytes[c] <= deficit_[c]) {
        deficit_[c] -= head_bytes[c];
        return static_cast<int>(c);
      }
    }
    current_ = (current_ + 1) % 8;
    granted_ = false;
  }
}

}  // namespace rnicsim
