#pragma once
// What one run may hold in memory at once. Each experiment estimates, from
// its configuration and before it starts, the most its workload can hold
// (full queues, buffers, caches, work in flight) and refuses a configuration
// whose estimate, plus the simulator's own baseline, exceeds the budget. So
// every run, whatever its length, stays well under 1 GiB (unless a user raises
// the collectives' key below), with room for the
// plot drawn by a child process afterwards (about 70 MiB of matplotlib).
#include <cstdint>

namespace rnicsim {

constexpr std::uint64_t kMiB = 1ULL << 20;
constexpr std::uint64_t kRunMemoryBudgetBytes = 512 * kMiB;
// The collectives experiment's default (collectives.memory_budget_bytes): its
// ranks' buffers are the simulated hosts' memory, held byte for byte so that
// every result is checked, and a 64 MiB AllReduce on 8 ranks needs 704 MiB of
// them (in place, with the ring's scratch). It has no plot, so it still ends
// well under 1 GiB; a user with the memory may raise the key for more ranks.
constexpr std::uint64_t kCollectivesMemoryBudgetBytes = 768 * kMiB;
// The simulator itself: code, the SystemC kernel, the modules, a few threads'
// stacks (measured: 9 to 15 MiB resident for the presets).
constexpr std::uint64_t kSimulatorBaselineBytes = 32 * kMiB;

}  // namespace rnicsim
