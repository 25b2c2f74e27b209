#include "nic/translation/translation_cache_rtl.hpp"

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "Vmpt_cache.h"
#include "Vmpt_cache_16x4.h"
#include "Vmtt_cache_nic.h"
#include "Vtranslation_cache.h"
#include "nic/rtl_bridge/clocking.hpp"
#include "nic/rtl_bridge/verilated_ports.hpp"

namespace rnicsim::rtl_bridge {

namespace {

// The RTL's INDEX_BITS: both tables hold fewer than 2^32 entries
// (translation.mpt_entries, translation.mtt_entries).
constexpr std::uint64_t kLargestIndex = 0xFFFFFFFF;

// The MPT entry's bytes the cache keeps: flags to page count (mpt_format.hpp).
constexpr std::size_t kMptCachedBytes = 36;

// Values to and from the RTL's value ports: a page address as it is, an MPT
// entry as its cached bytes in table order, byte 0 in bits 7..0.
void to_port(std::uint64_t page_address, QData& port) { port = page_address; }

template <std::size_t kWords>
void to_port(const MptEntry& entry, VlWide<kWords>& port) {
  static_assert(kWords * sizeof(EData) == kMptCachedBytes, "VALUE_BITS is the cached bytes");
  set_bytes(port, encode_mpt(entry).data(), kMptCachedBytes);
}

template <class Value, typename Port>
Value from_port(const Port& port) {
  if constexpr (std::is_same_v<Value, MptEntry>) {
    std::uint8_t bytes[kMptEntryBytes] = {};  // the reserved rest zero, as the driver writes it
    get_bytes(port, bytes, kMptCachedBytes);
    return decode_mpt(bytes);
  } else {
    return port;
  }
}

template <typename Top, class Value>
class RtlEntryCache final : public EntryCache<Value> {
 public:
  RtlEntryCache() {
    top_.s_lookup_valid_i = 0;
    top_.s_fill_valid_i = 0;
    top_.s_invalidate_valid_i = 0;
    top_.m_lookup_ready_i = 1;  // the unit takes every response at once
    top_.m_miss_ready_i = 1;    // and answers every miss with its own walker
    top_.probe_index_i = 0;
    reset(top_, 1);
  }
  ~RtlEntryCache() override { top_.final(); }
  const char* name() const override { return "rtl/translation_cache"; }

  std::optional<Value> lookup(std::uint64_t index) override {
    top_.s_lookup_valid_i = 1;
    top_.s_lookup_index_i = checked(index);
    take(top_.s_lookup_ready_o, "lookup", index);
    top_.s_lookup_valid_i = 0;
    // The response, registered at the edge that took the lookup.
    if (!top_.m_lookup_valid_o) throw wrong_timing("lookup", index, "gave no response");
    if (top_.m_lookup_hit_o) {
      ++hits_;
      return from_port<Value>(top_.m_lookup_value_o);
    }
    if (!top_.m_miss_valid_o || top_.m_miss_index_o != index) {
      throw wrong_timing("lookup", index, "missed without sending that index to the walker");
    }
    ++misses_;
    return std::nullopt;
  }

  std::optional<Value> peek(std::uint64_t index) const override {
    top_.probe_index_i = checked(index);
    top_.eval();  // the probe is combinational; the clock does not move
    if (!top_.probe_hit_o) return std::nullopt;
    return from_port<Value>(top_.probe_value_o);
  }

  void insert(std::uint64_t index, const Value& value) override {
    top_.s_fill_valid_i = 1;
    top_.s_fill_index_i = checked(index);
    to_port(value, top_.s_fill_value_i);
    take(top_.s_fill_ready_o, "fill", index);
    top_.s_fill_valid_i = 0;
  }

  void invalidate(std::uint64_t index) override {
    top_.s_invalidate_valid_i = 1;
    top_.s_invalidate_index_i = checked(index);
    take(top_.s_invalidate_ready_o, "invalidate", index);
    top_.s_invalidate_valid_i = 0;
  }

  std::uint64_t hits() const override { return hits_; }
  std::uint64_t misses() const override { return misses_; }
  std::uint64_t rtl_cycles() const override { return cycles_; }

 private:
  static std::uint32_t checked(std::uint64_t index) {
    if (index > kLargestIndex) {
      throw std::invalid_argument("rtl/translation_cache takes entry numbers below 2^32, not " +
                                  std::to_string(index));
    }
    return static_cast<std::uint32_t>(index);
  }

  // The cycle that takes the one operation offered: the RTL is idle between
  // operations, so it must be ready.
  template <typename Ready>
  void take(const Ready& ready, const char* what, std::uint64_t index) {
    top_.clk_i = 0;
    top_.eval();
    if (!ready) throw wrong_timing(what, index, "was not ready to take it");
    rise(top_);
    ++cycles_;
  }

  static std::logic_error wrong_timing(const char* what, std::uint64_t index,
                                       const std::string& problem) {
    return std::logic_error("rtl/translation_cache " + problem + " (" + what + " of entry " +
                            std::to_string(index) +
                            "), not as rtl/translation_cache/README.md times an operation alone");
  }

  mutable Top top_;  // a peek evaluates the probe port
  std::uint64_t hits_ = 0;
  std::uint64_t misses_ = 0;
  std::uint64_t cycles_ = 0;
};

bool same_geometry(const CacheGeometry& a, const CacheGeometry& b) {
  return a.entries == b.entries && a.ways == b.ways && a.replacement == b.replacement;
}

template <class Geometries>
std::invalid_argument not_verilated(const char* cache, const CacheGeometry& geometry,
                                    const Geometries& verilated) {
  return std::invalid_argument(
      std::string("rtl/translation_cache is not verilated as the ") + cache + " cache at " +
      std::to_string(geometry.entries) + " entries x " + std::to_string(geometry.ways) + " ways" +
      (geometry.replacement == Replacement::kLru ? "" : " with random replacement") + " (only " +
      describe_geometries(verilated) + ", LRU: rtl/CMakeLists.txt)");
}

std::unique_ptr<MptCache> make_rtl_mpt_cache(const CacheGeometry& geometry) {
  const auto& verilated = kVerilatedMptCacheGeometries;
  static_assert(std::size(kVerilatedMptCacheGeometries) == 2, "each needs its model below");
  if (same_geometry(geometry, verilated[0])) {
    return std::make_unique<RtlEntryCache<Vmpt_cache, MptEntry>>();
  }
  if (same_geometry(geometry, verilated[1])) {
    return std::make_unique<RtlEntryCache<Vmpt_cache_16x4, MptEntry>>();
  }
  throw not_verilated("MPT", geometry, verilated);
}

std::unique_ptr<PageCache> make_rtl_mtt_cache(const CacheGeometry& geometry) {
  const auto& verilated = kVerilatedTranslationCacheGeometries;
  static_assert(std::size(kVerilatedTranslationCacheGeometries) == 2, "each needs its model below");
  if (same_geometry(geometry, verilated[0])) {
    return std::make_unique<RtlEntryCache<Vmtt_cache_nic, std::uint64_t>>();
  }
  if (same_geometry(geometry, verilated[1])) {
    return std::make_unique<RtlEntryCache<Vtranslation_cache, std::uint64_t>>();
  }
  throw not_verilated("MTT", geometry, verilated);
}

}  // namespace

EntryCacheMaker<MptEntry> make_mpt_cache_maker(BlockImpl impl) {
  if (impl == BlockImpl::kModel) return make_model_entry_cache<MptEntry>;
  return [](const CacheGeometry& geometry, std::uint64_t) { return make_rtl_mpt_cache(geometry); };
}

EntryCacheMaker<std::uint64_t> make_mtt_cache_maker(BlockImpl impl) {
  if (impl == BlockImpl::kModel) return make_model_entry_cache<std::uint64_t>;
  return [](const CacheGeometry& geometry, std::uint64_t) { return make_rtl_mtt_cache(geometry); };
}

EntryCacheMakers make_entry_cache_makers(BlockImpl mpt_cache, BlockImpl mtt_cache) {
  return {make_mpt_cache_maker(mpt_cache), make_mtt_cache_maker(mtt_cache)};
}

}  // namespace rnicsim::rtl_bridge
