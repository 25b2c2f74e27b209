#pragma once
// EntryCache: one of the translation unit's two caches of table entries,
// entry number to entry, set-associative: the MPT cache (MptCache, MPT
// index to MPT entry) and the MTT cache (PageCache, MTT entry number to the
// page address it holds). Either the model's TranslationCache or the
// verilated rtl/translation_cache (nic/translation/translation_cache_rtl.hpp), chosen per cache by
// `translation.mpt_cache_impl` and `translation.mtt_cache_impl`. Neither takes simulated
// time: MemoryTranslation charges the hit latency and the walks.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "interface/mpt_format.hpp"
#include "nic/translation/translation_cache.hpp"

namespace rnicsim {

template <class Value>
class EntryCache {
 public:
  virtual ~EntryCache() = default;
  virtual const char* name() const = 0;
  // The cached entry, counting a hit or a miss.
  virtual std::optional<Value> lookup(std::uint64_t index) = 0;
  // The cached entry without counting or touching replacement.
  virtual std::optional<Value> peek(std::uint64_t index) const = 0;
  // What a walk brought back: replaces a present entry, else takes the first
  // invalid way of the set, else the victim replacement chooses.
  virtual void insert(std::uint64_t index, const Value& value) = 0;
  // Drops an entry (the driver changed it); absent entries are ignored.
  virtual void invalidate(std::uint64_t index) = 0;
  virtual std::uint64_t hits() const = 0;
  virtual std::uint64_t misses() const = 0;
  // Clock cycles a verilated cache ran (counted, not charged); 0 for the model.
  virtual std::uint64_t rtl_cycles() const { return 0; }
};

using MptCache = EntryCache<MptEntry>;
using PageCache = EntryCache<std::uint64_t>;

// Makes a cache at a geometry (again at each restart of the unit).
template <class Value>
using EntryCacheMaker =
    std::function<std::unique_ptr<EntryCache<Value>>(const CacheGeometry& geometry,
                                                     std::uint64_t seed)>;

// The model's cache: TranslationCache<Value>.
template <class Value>
class ModelEntryCache final : public EntryCache<Value> {
 public:
  ModelEntryCache(const CacheGeometry& geometry, std::uint64_t seed) : cache_(geometry, seed) {}
  const char* name() const override { return "model"; }
  std::optional<Value> lookup(std::uint64_t index) override { return cache_.lookup(index); }
  std::optional<Value> peek(std::uint64_t index) const override { return cache_.peek(index); }
  void insert(std::uint64_t index, const Value& value) override { cache_.insert(index, value); }
  void invalidate(std::uint64_t index) override { cache_.invalidate(index); }
  std::uint64_t hits() const override { return cache_.hits(); }
  std::uint64_t misses() const override { return cache_.misses(); }

 private:
  TranslationCache<Value> cache_;
};

template <class Value>
std::unique_ptr<EntryCache<Value>> make_model_entry_cache(const CacheGeometry& geometry,
                                                          std::uint64_t seed) {
  return std::make_unique<ModelEntryCache<Value>>(geometry, seed);
}

// Where the unit's two caches come from; the model's by default.
struct EntryCacheMakers {
  EntryCacheMaker<MptEntry> mpt = make_model_entry_cache<MptEntry>;
  EntryCacheMaker<std::uint64_t> mtt = make_model_entry_cache<std::uint64_t>;
};

// The geometries rtl/CMakeLists.txt verilates rtl/translation_cache at for the NIC
// (LRU only). MTT cache: the default, and a small one whose sets a test can
// overflow. MPT cache: the default, and the block tests' small one.
inline constexpr CacheGeometry kVerilatedTranslationCacheGeometries[] = {
    {4096, 8, Replacement::kLru},
    {64, 4, Replacement::kLru},
};
inline constexpr CacheGeometry kVerilatedMptCacheGeometries[] = {
    {1024, 4, Replacement::kLru},
    {16, 4, Replacement::kLru},
};

// "4096 x 8 or 64 x 4": a list of geometries (entries x ways) for messages.
template <class Geometries>
std::string describe_geometries(const Geometries& geometries) {
  std::string text;
  for (const CacheGeometry& g : geometries) {
    text += (text.empty() ? "" : " or ") + std::to_string(g.entries) + " x " +
            std::to_string(g.ways);
  }
  return text;
}

}  // namespace rnicsim
