#include "rtl_bridge/mtt_cache_rtl.hpp"

#include <cstdint>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>

#include "Vmtt_cache.h"
#include "Vmtt_cache_nic.h"
#include "rtl_bridge/clocking.hpp"

namespace rnicsim::rtl_bridge {

namespace {

// The RTL's INDEX_BITS: the MTT holds at most 2^32 entries (mtt.mtt_entries).
constexpr std::uint64_t kLargestIndex = 0xFFFFFFFF;

template <typename Top>
class RtlPageCache final : public PageCache {
 public:
  RtlPageCache() {
    top_.s_lookup_valid_i = 0;
    top_.s_fill_valid_i = 0;
    top_.s_invalidate_valid_i = 0;
    top_.m_lookup_ready_i = 1;  // the unit takes every response at once
    top_.m_miss_ready_i = 1;    // and answers every miss with its own walker
    top_.probe_index_i = 0;
    reset(top_, 1);
  }
  ~RtlPageCache() override { top_.final(); }
  const char* name() const override { return "rtl/mtt_cache"; }

  std::optional<std::uint64_t> lookup(std::uint64_t index) override {
    top_.s_lookup_valid_i = 1;
    top_.s_lookup_index_i = checked(index);
    take(top_.s_lookup_ready_o, "lookup", index);
    top_.s_lookup_valid_i = 0;
    // The response, registered at the edge that took the lookup.
    if (!top_.m_lookup_valid_o) throw wrong_timing("lookup", index, "gave no response");
    if (top_.m_lookup_hit_o) {
      ++hits_;
      return top_.m_lookup_value_o;
    }
    if (!top_.m_miss_valid_o || top_.m_miss_index_o != index) {
      throw wrong_timing("lookup", index, "missed without sending that index to the walker");
    }
    ++misses_;
    return std::nullopt;
  }

  std::optional<std::uint64_t> peek(std::uint64_t index) const override {
    top_.probe_index_i = checked(index);
    top_.eval();  // the probe is combinational: no clock edge
    if (!top_.probe_hit_o) return std::nullopt;
    return top_.probe_value_o;
  }

  void insert(std::uint64_t index, std::uint64_t page_address) override {
    top_.s_fill_valid_i = 1;
    top_.s_fill_index_i = checked(index);
    top_.s_fill_value_i = page_address;
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
      throw std::invalid_argument("rtl/mtt_cache takes MTT indices below 2^32, not " +
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
    return std::logic_error("rtl/mtt_cache " + problem + " (" + what + " of MTT entry " +
                            std::to_string(index) +
                            "), not as rtl/mtt_cache/README.md times an operation alone");
  }

  mutable Top top_;  // a peek evaluates the probe port
  std::uint64_t hits_ = 0;
  std::uint64_t misses_ = 0;
  std::uint64_t cycles_ = 0;
};

std::unique_ptr<PageCache> make_rtl_page_cache(const CacheGeometry& geometry) {
  static_assert(std::size(kVerilatedPageCacheGeometries) == 2,
                "each verilated geometry needs its model below");
  const auto is = [&geometry](const CacheGeometry& g) {
    return geometry.entries == g.entries && geometry.ways == g.ways &&
           geometry.replacement == Replacement::kLru;
  };
  if (is(kVerilatedPageCacheGeometries[0])) return std::make_unique<RtlPageCache<Vmtt_cache_nic>>();
  if (is(kVerilatedPageCacheGeometries[1])) return std::make_unique<RtlPageCache<Vmtt_cache>>();
  std::string verilated;
  for (const CacheGeometry& g : kVerilatedPageCacheGeometries) {
    verilated += (verilated.empty() ? "" : ", ") + std::to_string(g.entries) + " x " +
                 std::to_string(g.ways);
  }
  throw std::invalid_argument(
      "rtl/mtt_cache is not verilated at " + std::to_string(geometry.entries) + " entries x " +
      std::to_string(geometry.ways) + " ways" +
      (geometry.replacement == Replacement::kLru ? "" : " with random replacement") + " (only " +
      verilated + ", LRU: rtl/CMakeLists.txt)");
}

}  // namespace

PageCacheMaker make_page_cache_maker(BlockImpl impl) {
  if (impl == BlockImpl::kModel) return make_model_page_cache;
  return [](const CacheGeometry& geometry, std::uint64_t) { return make_rtl_page_cache(geometry); };
}

}  // namespace rnicsim::rtl_bridge
