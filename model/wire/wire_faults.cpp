#include "wire/wire_faults.hpp"

#include <utility>

#include "common/time_units.hpp"

namespace rnicsim {

WireFaults::WireFaults(const char* name, FaultInjector injector, ReceiveBuffer& rx,
                       SerializationTime serialization)
    : sc_core::sc_prim_channel(name),
      injector_(std::move(injector)),
      rx_(rx),
      serialization_(std::move(serialization)) {}

void WireFaults::push(Transfer frame, const sc_core::sc_time& latency) {
  const sc_core::sc_time arrival = sim_now() + latency;
  const FaultDecision decision = injector_.inject(frame, to_ps(arrival));
  if (!decision.delivered) return;
  if (decision.corrupted_bytes) frame.set_bytes(decision.corrupted_bytes);
  const sc_core::sc_time delayed = latency + picoseconds(decision.extra_delay_ps);
  const bool late = decision.extra_delay_ps > 0;
  if (decision.duplicated) {
    const sc_core::sc_time copy_latency = delayed + serialization_(frame);
    rx_.push_in_arrival_order(frame, delayed, late);
    rx_.push_in_arrival_order(std::move(frame), copy_latency, true);
  } else {
    rx_.push_in_arrival_order(std::move(frame), delayed, late);
  }
}

}  // namespace rnicsim
