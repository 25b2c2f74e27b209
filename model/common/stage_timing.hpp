#pragma once
// The shared timing of a pipeline stage.
//
// A stage serves one item at a time. Serving takes the service time: the
// datapath occupancy (bits over a rate, or beats of a clocked datapath) but at
// least the initiation interval. The item then needs `latency` more before it
// is visible downstream; that part is pipelined, so it adds to latency and not
// to the interval between items, as long as the channel after the stage has
// room for the items in flight (see channel.hpp).
#include <cstdint>
#include <optional>
#include <systemc>

#include "common/clock_domain.hpp"

namespace rnicsim {

class StageTiming {
 public:
  // A datapath of `gbps` Gbit/s (0: no rate limit) with a fixed latency.
  static StageTiming rate(const sc_core::sc_time& latency, double gbps);
  // A clocked datapath moving `bytes_per_cycle` (0: no width limit) that accepts
  // an item at most every `initiation_interval_cycles` cycles.
  static StageTiming clocked(const ClockDomain& clock, std::uint64_t latency_cycles,
                             std::uint64_t bytes_per_cycle,
                             std::uint64_t initiation_interval_cycles);

  // A stage that takes no time; configured stages use the factories above.
  StageTiming() = default;

  sc_core::sc_time service_time(std::uint64_t bits) const;
  const sc_core::sc_time& latency() const { return latency_; }

 private:
  sc_core::sc_time latency_;
  double gbps_ = 0;
  std::optional<ClockDomain> clock_;  // set for clocked stages
  std::uint64_t bytes_per_cycle_ = 0;
  std::uint64_t initiation_interval_cycles_ = 0;
};

}  // namespace rnicsim
