#pragma once
// RED/WRED marking for ECN (RFC 3168 marks; the RED line as DCQCN's switches
// use it, Zhu et al., SIGCOMM 2015): an ECN-capable frame joining a queue of
// `depth` bytes is marked CE with probability 0 below Kmin, rising linearly
// to Pmax at Kmax, and 1 above Kmax. Kernel-free; the draw is the caller's
// seeded generator's.
#include <cstdint>
#include <random>

namespace rnicsim {

struct RedProfile {
  bool enabled = false;
  std::uint64_t kmin_bytes = 0;
  std::uint64_t kmax_bytes = 0;
  double pmax = 0;

  double probability(std::uint64_t depth) const {
    if (!enabled || depth < kmin_bytes) return 0;
    if (depth > kmax_bytes) return 1;
    if (kmax_bytes == kmin_bytes) return pmax;
    return pmax * static_cast<double>(depth - kmin_bytes) /
           static_cast<double>(kmax_bytes - kmin_bytes);
  }
};

// Whether to mark: a uniform draw from the top 53 bits below the probability.
inline bool red_mark(const RedProfile& profile, std::uint64_t depth, std::mt19937_64& random) {
  const double p = profile.probability(depth);
  if (p <= 0) return false;
  if (p >= 1) return true;
  return static_cast<double>(random() >> 11) * 0x1.0p-53 < p;
}

}  // namespace rnicsim
