#pragma once
// The bytes of Data `index`: a seeded pseudo-random pattern, so the receiver
// can check every byte that arrives without keeping a copy of what was sent.
#include <cstdint>

#include "common/transfer.hpp"

namespace rnicsim {

// ceil(bits / 8) bytes; bits past `bits` in the last byte are zero.
Bytes data_pattern(std::uint64_t seed, std::uint64_t index, std::uint64_t bits);

}  // namespace rnicsim
