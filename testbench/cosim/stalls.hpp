#pragma once
// Random stalls on both sides of a block under test: the source holds its
// next item back, the sink refuses to take one, each with its probability
// per cycle, from the test's seeded stream.
#include <random>

namespace rnicsim::cosim {

struct Stalls {
  double source_idle = 0;
  double sink_busy = 0;
};

// True with probability p; draws nothing when p is 0, so a run without
// stalls takes the same random stream whatever else it draws.
inline bool chance(std::mt19937_64& rng, double p) {
  return p > 0 && std::uniform_real_distribution<double>(0, 1)(rng) < p;
}

}  // namespace rnicsim::cosim
