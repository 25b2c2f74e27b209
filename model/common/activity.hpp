#pragma once
// Process activations, counted by our own channel and stage code: SystemC
// keeps no public count. Benchmarks reset the counters, run, and divide by the
// packets moved to report kernel activations per packet.
//
// What is counted: a thread resuming inside a channel's blocking call (push,
// pop, wait_for_space) or a stage waiting for any of its inputs
// (channel_wakes); a stage thread resuming from its own service-time wait
// (stage_resumptions); an SC_METHOD of ours running (method_activations; each
// method counts itself on entry, as only it knows it ran). Waits inside TLM
// targets and initiators are theirs to count.
#include <cstdint>

namespace rnicsim {

struct ActivityCounters {
  std::uint64_t channel_wakes = 0;
  std::uint64_t stage_resumptions = 0;
  std::uint64_t method_activations = 0;

  std::uint64_t total() const { return channel_wakes + stage_resumptions + method_activations; }
};

// The process's counters: a process runs one simulation (one elaboration).
inline ActivityCounters& activity() {
  static ActivityCounters counters;
  return counters;
}

inline void reset_activity() { activity() = ActivityCounters{}; }

}  // namespace rnicsim
