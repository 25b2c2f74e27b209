#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace rnicsim {

// Little-endian writes and reads at a cursor: the byte order of the NIC's
// structures in host memory (WQEs, CQEs, commands, Ethernet descriptors). A
// writer appends to a byte vector: a growing std::vector or an InlineVector.
// A reader that runs past its end reads zeros and reports !ok().
template <class Out>
class LittleEndianWriter {
 public:
  explicit LittleEndianWriter(Out& out) : out_(out) {}
  void u8(std::uint8_t v) { out_.push_back(v); }
  void u16(std::uint16_t v) { put(v, 2); }
  void u32(std::uint32_t v) { put(v, 4); }
  void u64(std::uint64_t v) { put(v, 8); }
  void bytes(const std::uint8_t* data, std::size_t n) {
    if (n > 0) std::memcpy(grow(n), data, n);  // `data` may be null when n is 0
  }

 private:
  // Grows the output by `n` bytes and points at them: a field is then n
  // plain stores (merged by the compiler), not n checked push_backs.
  std::uint8_t* grow(std::size_t n) {
    const std::size_t at = out_.size();
    out_.resize(at + n);
    return out_.data() + at;
  }
  void put(std::uint64_t v, int n) {
    std::uint8_t* at = grow(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) at[i] = static_cast<std::uint8_t>(v >> (8 * i));
  }
  Out& out_;
};

class LittleEndianReader {
 public:
  LittleEndianReader(const std::uint8_t* data, std::size_t length) : data_(data), length_(length) {}
  bool ok() const { return ok_; }
  std::uint8_t u8() { return static_cast<std::uint8_t>(get(1)); }
  std::uint16_t u16() { return static_cast<std::uint16_t>(get(2)); }
  std::uint32_t u32() { return static_cast<std::uint32_t>(get(4)); }
  std::uint64_t u64() { return get(8); }
  void bytes(std::uint8_t* out, std::size_t n) {
    if (at_ + n > length_) {
      ok_ = false;
      return;
    }
    if (n == 0) return;  // `out` may be null then (an empty vector's data()), which memcpy forbids
    std::memcpy(out, data_ + at_, n);
    at_ += n;
  }

 private:
  std::uint64_t get(int n) {
    if (at_ + static_cast<std::size_t>(n) > length_) {
      ok_ = false;
      return 0;
    }
    std::uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= static_cast<std::uint64_t>(data_[at_ + i]) << (8 * i);
    at_ += static_cast<std::size_t>(n);
    return v;
  }
  const std::uint8_t* data_;
  std::size_t length_;
  std::size_t at_ = 0;
  bool ok_ = true;
};

// `n` (at most 8) little-endian bytes at `data` as a number: a register
// write's value, a word the NIC wrote back.
inline std::uint64_t load_little_endian(const std::uint8_t* data, std::size_t n) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < n; ++i) value |= static_cast<std::uint64_t>(data[i]) << (8 * i);
  return value;
}
// The low `n` (at most 8) bytes of `value`, little-endian, into `out`.
inline void store_little_endian(std::uint64_t value, std::uint8_t* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::uint8_t>(value >> (8 * i));
}

// C++17 deduces no alias template's arguments: `auto w = little_endian_writer(bytes);`.
template <class Out>
LittleEndianWriter<Out> little_endian_writer(Out& out) {
  return LittleEndianWriter<Out>(out);
}

}  // namespace rnicsim
