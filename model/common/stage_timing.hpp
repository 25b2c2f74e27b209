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

  // Remembers the times of the two sizes asked for last: a stage sees one or
  // two frame sizes in a stream (data and acknowledgements), and a rate
  // stage works a time out with a long-double division and rounding. Not for
  // sharing between threads: a query writes the memory.
  sc_core::sc_time service_time(std::uint64_t bits) const {
    if (bits == recent_[0].bits) {
      older_ = 1;
      return recent_[0].time;
    }
    if (bits == recent_[1].bits) {
      older_ = 0;
      return recent_[1].time;
    }
    Recent& replaced = recent_[older_];
    older_ ^= 1;
    replaced = Recent{bits, work_out_service_time(bits)};
    return replaced.time;
  }
  const sc_core::sc_time& latency() const { return latency_; }

 private:
  struct Recent {
    std::uint64_t bits = 0;
    sc_core::sc_time time;  // zero: right for a stage that takes no time
  };
  // Fills both entries with size 0, so that no size needs a marker for
  // "nothing remembered" (a factory calls it once the timing is set).
  void remember_nothing_but_zero();

  sc_core::sc_time work_out_service_time(std::uint64_t bits) const;

  sc_core::sc_time latency_;
  double gbps_ = 0;
  std::optional<ClockDomain> clock_;  // set for clocked stages
  std::uint64_t bytes_per_cycle_ = 0;
  std::uint64_t initiation_interval_cycles_ = 0;
  mutable Recent recent_[2];
  mutable unsigned older_ = 0;  // the entry asked for less recently
};

}  // namespace rnicsim
