#pragma once
// The memory-protection table (MPT) and memory-translation table (MTT) as
// they sit in NIC-owned host memory (like ConnectX's ICM): the driver writes
// them when it registers memory, the NIC's page-table walker reads them by DMA.
//
// MPT entry, 64 bytes, little-endian:
//   0       flags (bit 0: valid)         1      key variant
//   2       access flags (ibv_access)    3      page shift (log2 of page size)
//   4..7    protection domain            8..15  base virtual address
//   16..23  length in bytes              24..31 index of the MR's first MTT entry
//   32..35  number of pages              36..63 reserved, zero
// MTT entry, 8 bytes: the physical address of one page.
//
// A key (lkey = rkey) is (MPT index << 8) | key variant: the variant changes
// with every registration at an index, so a key kept after deregistration
// no longer matches.
#include <array>
#include <cstdint>

namespace rnicsim {

// ibv_access_flags values, as in libibverbs.
enum IbvAccess : std::uint32_t {
  IBV_ACCESS_LOCAL_WRITE = 1,
  IBV_ACCESS_REMOTE_WRITE = 2,
  IBV_ACCESS_REMOTE_READ = 4,
  IBV_ACCESS_REMOTE_ATOMIC = 8,
};

constexpr std::uint32_t kMptEntryBytes = 64;
constexpr std::uint32_t kMttEntryBytes = 8;

struct MptEntry {
  bool valid = false;
  std::uint8_t key_variant = 0;
  std::uint8_t access = 0;
  std::uint8_t page_shift = 0;
  std::uint32_t pd = 0;
  std::uint64_t base_va = 0;
  std::uint64_t length = 0;
  std::uint64_t first_mtt = 0;
  std::uint32_t pages = 0;

  bool operator==(const MptEntry& o) const {
    return valid == o.valid && key_variant == o.key_variant && access == o.access &&
           page_shift == o.page_shift && pd == o.pd && base_va == o.base_va &&
           length == o.length && first_mtt == o.first_mtt && pages == o.pages;
  }
};

std::array<std::uint8_t, kMptEntryBytes> encode_mpt(const MptEntry& entry);
MptEntry decode_mpt(const std::uint8_t* bytes);

constexpr std::uint32_t make_key(std::uint32_t mpt_index, std::uint8_t variant) {
  return (mpt_index << 8) | variant;
}
constexpr std::uint32_t key_index(std::uint32_t key) { return key >> 8; }
constexpr std::uint8_t key_variant(std::uint32_t key) { return static_cast<std::uint8_t>(key); }

// Where the tables live in host memory; the driver and the NIC share it.
struct IcmLayout {
  std::uint64_t mpt_base = 0;
  std::uint32_t mpt_entries = 0;
  std::uint64_t mtt_base = 0;
  std::uint64_t mtt_entries = 0;
  std::uint64_t end() const { return mtt_base + mtt_entries * kMttEntryBytes; }
};

}  // namespace rnicsim
