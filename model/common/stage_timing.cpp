#include "common/stage_timing.hpp"

#include <algorithm>

#include "common/time_units.hpp"

namespace rnicsim {

StageTiming StageTiming::rate(const sc_core::sc_time& latency, double gbps) {
  StageTiming timing;
  timing.latency_ = latency;
  timing.gbps_ = gbps;
  timing.remember_nothing_but_zero();
  return timing;
}

StageTiming StageTiming::clocked(const ClockDomain& clock, std::uint64_t latency_cycles,
                                 std::uint64_t bytes_per_cycle,
                                 std::uint64_t initiation_interval_cycles) {
  StageTiming timing;
  timing.clock_ = clock;
  timing.latency_ = clock.cycles(latency_cycles);
  timing.bytes_per_cycle_ = bytes_per_cycle;
  timing.initiation_interval_cycles_ = initiation_interval_cycles;
  timing.remember_nothing_but_zero();
  return timing;
}

void StageTiming::remember_nothing_but_zero() {
  recent_[0] = recent_[1] = Recent{0, work_out_service_time(0)};
}

sc_core::sc_time StageTiming::work_out_service_time(std::uint64_t bits) const {
  if (clock_) {
    const std::uint64_t bytes = (bits + 7) / 8;
    const std::uint64_t beats =
        bytes_per_cycle_ == 0 ? 0 : (bytes + bytes_per_cycle_ - 1) / bytes_per_cycle_;
    return clock_->cycles(std::max(beats, initiation_interval_cycles_));
  }
  return gbps_ > 0 ? serialization_time(bits, gbps_) : sc_core::SC_ZERO_TIME;
}

}  // namespace rnicsim
