#pragma once
// 24-bit packet sequence numbers, which wrap (IBTA 9.7.1).
#include <cstdint>

namespace rnicsim {

// PSNs are 24-bit and wrap: a comes before b when b - a, mod 2^24, is in (0, 2^23];
// psn_diff puts the half-way point behind.
constexpr std::uint32_t kPsnMask = 0xFFFFFF;
inline std::uint32_t psn_add(std::uint32_t psn, std::uint32_t n) { return (psn + n) & kPsnMask; }
inline std::int32_t psn_diff(std::uint32_t a, std::uint32_t b) {  // a - b, in [-2^23, 2^23)
  std::int32_t d = static_cast<std::int32_t>((a - b) & kPsnMask);
  return d >= (1 << 23) ? d - (1 << 24) : d;
}

}  // namespace rnicsim
