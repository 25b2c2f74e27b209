#include "pcie/link_direction.hpp"

#include <algorithm>

#include "common/time_units.hpp"

namespace rnicsim::pcie {

LinkDirection::LinkDirection(double gbps, const sc_core::sc_time& latency)
    : gbps_(gbps), latency_(latency) {}

sc_core::sc_time LinkDirection::occupy(std::uint32_t wire_bytes, const sc_core::sc_time& now) {
  const sc_core::sc_time start = std::max(now, busy_until_);
  const sc_core::sc_time duration = serialization_time(8ULL * wire_bytes, gbps_);
  busy_until_ = start + duration;
  stats_.busy += duration;
  return busy_until_;
}

LinkDirection::Slot LinkDirection::send_tlp(std::uint32_t wire_bytes,
                                            const sc_core::sc_time& now) {
  const sc_core::sc_time end = occupy(wire_bytes, now);
  ++stats_.tlps;
  stats_.tlp_bytes += wire_bytes;
  return Slot{end, end + latency_};
}

void LinkDirection::send_dllp(std::uint32_t wire_bytes, const sc_core::sc_time& now) {
  occupy(wire_bytes, now);
  ++stats_.dllps;
}

}  // namespace rnicsim::pcie
