#pragma once
// PageCache: the MTT cache of the translation unit, MTT entry numbers to the
// page addresses the entries hold, set-associative. Either the model's
// TranslationCache or the verilated rtl/mtt_cache (rtl_bridge/
// mtt_cache_rtl.hpp), chosen by `mtt.mtt_cache_impl`. Neither takes
// simulated time: MemoryTranslation charges the hit latency and the walks.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "mtt/translation_cache.hpp"

namespace rnicsim {

class PageCache {
 public:
  virtual ~PageCache() = default;
  virtual const char* name() const = 0;
  // The cached page address, counting a hit or a miss.
  virtual std::optional<std::uint64_t> lookup(std::uint64_t index) = 0;
  // The cached page address without counting or touching replacement.
  virtual std::optional<std::uint64_t> peek(std::uint64_t index) const = 0;
  // What a walk brought back: replaces a present entry, else takes the first
  // invalid way of the set, else the victim replacement chooses.
  virtual void insert(std::uint64_t index, std::uint64_t page_address) = 0;
  // Drops an entry (the driver changed it); absent entries are ignored.
  virtual void invalidate(std::uint64_t index) = 0;
  virtual std::uint64_t hits() const = 0;
  virtual std::uint64_t misses() const = 0;
  // Clock cycles a verilated cache ran (counted, not charged); 0 for the model.
  virtual std::uint64_t rtl_cycles() const { return 0; }
};

// Makes the MTT cache at a geometry (again at each restart of the unit).
using PageCacheMaker =
    std::function<std::unique_ptr<PageCache>(const CacheGeometry& geometry, std::uint64_t seed)>;

// The model's cache: TranslationCache<std::uint64_t>.
std::unique_ptr<PageCache> make_model_page_cache(const CacheGeometry& geometry,
                                                 std::uint64_t seed);

// The geometries rtl/CMakeLists.txt verilates rtl/mtt_cache at for the NIC
// (LRU only): the default MTT cache, and a small one whose sets a test can
// overflow.
inline constexpr CacheGeometry kVerilatedPageCacheGeometries[] = {
    {4096, 8, Replacement::kLru},
    {64, 4, Replacement::kLru},
};

}  // namespace rnicsim
