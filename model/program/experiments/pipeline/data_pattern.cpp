#include "program/experiments/pipeline/data_pattern.hpp"

namespace rnicsim {
namespace {

// SplitMix64 (Steele, Lea, Flood 2014): a small, well-mixed generator whose
// whole state is one word, so Data `index` is reproducible on its own.
std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

}  // namespace

Bytes data_pattern(std::uint64_t seed, std::uint64_t index, std::uint64_t bits) {
  Bytes bytes((bits + 7) / 8);
  std::uint64_t state = seed * 0x100000001B3ULL ^ index;
  std::uint64_t word = 0;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (i % 8 == 0) word = splitmix64(state);
    bytes[i] = static_cast<std::uint8_t>(word >> (8 * (i % 8)));
  }
  if (bits % 8 != 0) bytes.back() &= static_cast<std::uint8_t>((1U << (bits % 8)) - 1);
  return bytes;
}

}  // namespace rnicsim
