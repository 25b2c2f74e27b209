#pragma once
// What one run may hold in memory at once. Each experiment estimates, from
// its configuration and before it starts, the most its workload can hold
// (full queues, buffers, caches, work in flight) and refuses a configuration
// whose estimate, plus the simulator's own baseline, exceeds the budget. So
// every run, whatever its length, stays well under 1 GiB, with room for the
// plot drawn by a child process afterwards (about 70 MiB of matplotlib).
#include <cstdint>

namespace rnicsim {

constexpr std::uint64_t kMiB = 1ULL << 20;
constexpr std::uint64_t kRunMemoryBudgetBytes = 512 * kMiB;
// The simulator itself: code, the SystemC kernel, the modules, a few threads'
// stacks (measured: 9 to 15 MiB resident for the presets).
constexpr std::uint64_t kSimulatorBaselineBytes = 32 * kMiB;

}  // namespace rnicsim
