#pragma once
// Bytes into and out of a verilated model's ports, whatever C++ type
// Verilator gives a port of that width: CData (up to 8 bits), SData (16),
// IData (32), QData (64) or VlWide<N> (wider). Byte 0 is bits 7..0, as an
// AXI-style stream's lane 0.
#include <verilated.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <stdexcept>

#include "common/little_endian.hpp"

namespace rnicsim::rtl_bridge {

// Narrow ports: `length` bytes from `bytes` into the low lanes, zeros above.
template <typename Port>
void set_bytes(Port& port, const std::uint8_t* bytes, std::size_t length) {
  port = static_cast<Port>(load_little_endian(bytes, length));
}

// Narrow ports: the low `length` bytes, the other way.
template <typename Port>
void get_bytes(const Port& port, std::uint8_t* bytes, std::size_t length) {
  store_little_endian(static_cast<std::uint64_t>(port), bytes, length);
}

// A wide port's words hold its bytes in memory order on a little-endian
// host, so a copy fills it.
template <std::size_t kWords>
void set_bytes(VlWide<kWords>& port, const std::uint8_t* bytes, std::size_t length) {
  static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "VlWide words in memory order");
  auto* words = reinterpret_cast<std::uint8_t*>(port.data());
  std::memcpy(words, bytes, length);
  std::memset(words + length, 0, kWords * sizeof(EData) - length);
}

// The first `length` bytes of a wide port, the other way.
template <std::size_t kWords>
void get_bytes(const VlWide<kWords>& port, std::uint8_t* bytes, std::size_t length) {
  static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "VlWide words in memory order");
  std::memcpy(bytes, port.data(), length);
}

// Ones in the low `count` bits: a stream's keep for `count` valid lanes.
template <typename Port>
void set_low_ones(Port& port, std::size_t count) {
  port = static_cast<Port>(count >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << count) - 1);
}

template <std::size_t kWords>
void set_low_ones(VlWide<kWords>& port, std::size_t count) {
  for (std::size_t w = 0; w < kWords; ++w) {
    const std::size_t in_word = count > 32 * w ? count - 32 * w : 0;
    port[w] = in_word >= 32 ? ~EData{0} : (EData{1} << in_word) - 1;
  }
}

// Random bits everywhere: what a stream carries while it is not valid, so
// that a block that reads it then shows up as a mismatch.
template <typename Port>
void set_random(Port& port, std::mt19937_64& rng) {
  port = static_cast<Port>(rng());
}

template <std::size_t kWords>
void set_random(VlWide<kWords>& port, std::mt19937_64& rng) {
  for (std::size_t w = 0; w < kWords; ++w) port[w] = static_cast<EData>(rng());
}

// A packed struct's bits, put field by field from its last member (the
// lowest bits) up, then written whole into a wide signal (a tests' backdoor).
template <std::size_t kWords>
class PackedBits {
 public:
  // The low `bits` bits of `value` as the next field up.
  void put(std::uint64_t value, unsigned bits) {
    if (used_ + bits > 32 * kWords) throw std::length_error("PackedBits: more bits than words");
    for (unsigned i = 0; i < bits; ++i, ++used_) {
      if ((value >> i) & 1) words_[used_ / 32] |= EData{1} << (used_ % 32);
    }
  }
  std::size_t size() const { return used_; }
  void write_to(VlWide<kWords>& signal) const {
    for (std::size_t w = 0; w < kWords; ++w) signal[w] = words_[w];
  }

 private:
  EData words_[kWords] = {};
  std::size_t used_ = 0;
};

}  // namespace rnicsim::rtl_bridge
