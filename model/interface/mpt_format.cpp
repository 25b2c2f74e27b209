#include "interface/mpt_format.hpp"

namespace rnicsim {
namespace {

void put(std::uint8_t* at, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) at[i] = static_cast<std::uint8_t>(value >> (8 * i));
}

std::uint64_t get(const std::uint8_t* at, int bytes) {
  std::uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) value |= static_cast<std::uint64_t>(at[i]) << (8 * i);
  return value;
}

}  // namespace

std::array<std::uint8_t, kMptEntryBytes> encode_mpt(const MptEntry& e) {
  std::array<std::uint8_t, kMptEntryBytes> bytes{};
  bytes[0] = e.valid ? 1 : 0;
  bytes[1] = e.key_variant;
  bytes[2] = e.access;
  bytes[3] = e.page_shift;
  put(&bytes[4], e.pd, 4);
  put(&bytes[8], e.base_va, 8);
  put(&bytes[16], e.length, 8);
  put(&bytes[24], e.first_mtt, 8);
  put(&bytes[32], e.pages, 4);
  return bytes;
}

MptEntry decode_mpt(const std::uint8_t* bytes) {
  MptEntry e;
  e.valid = (bytes[0] & 1) != 0;
  e.key_variant = bytes[1];
  e.access = bytes[2];
  e.page_shift = bytes[3];
  e.pd = static_cast<std::uint32_t>(get(&bytes[4], 4));
  e.base_va = get(&bytes[8], 8);
  e.length = get(&bytes[16], 8);
  e.first_mtt = get(&bytes[24], 8);
  e.pages = static_cast<std::uint32_t>(get(&bytes[32], 4));
  return e;
}

}  // namespace rnicsim
