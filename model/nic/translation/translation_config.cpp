#include "nic/translation/translation_config.hpp"

#include <iterator>
#include <optional>
#include <string>
#include <vector>

namespace rnicsim {

// A set-associative cache has entries / ways sets.
std::optional<config::Violation> ways_violation(const config::Json& doc, const char* ways_key,
                                                const char* entries_key) {
  const auto ways = config::at_path(doc, ways_key).get<std::uint64_t>();
  const auto entries = config::at_path(doc, entries_key).get<std::uint64_t>();
  if (entries % ways == 0) return std::nullopt;
  return config::Violation{ways_key, "must divide " + std::string(entries_key) + " (got " +
                                         std::to_string(ways) + ", " + entries_key + " is " +
                                         std::to_string(entries) + ")"};
}

namespace {

// One of the unit's caches: its keys, and the geometries rtl/translation_cache is
// verilated at for it.
struct CacheKeys {
  const char* impl;
  const char* entries;
  const char* ways;
  bool resized_by_translation_sweep;
  std::vector<CacheGeometry> verilated;
};

// A cache's impl rtl needs a fixed size (the translation sweep resizes the MTT
// cache point by point), LRU and a geometry rtl/translation_cache is verilated at.
std::optional<config::Violation> rtl_cache_violation(const config::Json& doc,
                                                     const CacheKeys& keys) {
  if (config::at_path(doc, keys.impl).get<std::string>() != "rtl") return std::nullopt;
  const std::string with_rtl = std::string(" with ") + keys.impl + " rtl";
  if (keys.resized_by_translation_sweep && config::at_path(doc, "experiment") == "translation") {
    return config::Violation{
        keys.impl,
        "must be model in the translation sweep, which resizes the MTT "
        "cache point by point; rtl/translation_cache is verilated at fixed sizes"};
  }
  if (config::at_path(doc, "translation.replacement").get<std::string>() != "lru") {
    return config::Violation{
        "translation.replacement",
        "must be lru" + with_rtl + ": rtl/translation_cache has no random replacement"};
  }
  const std::uint64_t entries = config::integer_at(doc, keys.entries);
  const std::uint64_t ways = config::integer_at(doc, keys.ways);
  for (const CacheGeometry& g : keys.verilated) {
    if (g.entries == entries && g.ways == ways) return std::nullopt;
  }
  return config::Violation{
      keys.entries, std::to_string(entries) + " entries x " + std::to_string(ways) + " ways (" +
                        keys.ways +
                        ") is not a geometry rtl/translation_cache is verilated "
                        "at for " +
                        keys.impl + " rtl: only " + describe_geometries(keys.verilated)};
}

}  // namespace

void declare_translation_keys(config::Schema& schema) {
  schema.add_rename("mtt", "translation");  // the block's one name: the translation unit
  using config::integer_key;
  schema.add(
      config::number_key("translation.clock_mhz", 250, "MHz", "clock of the translation unit")
          .at_least(1)
          .at_most(100000));  // 1 MHz .. 100 GHz: a cycle count stays a sane time
  schema.add(integer_key("translation.hit_cycles", 4, "cycles",
                         "latency of a translation whose entries are all cached")
                 .at_least(0)
                 .at_most(1000000));
  schema.add(integer_key("translation.initiation_interval_cycles", 1, "cycles",
                         "cycles between two requests the unit accepts")
                 .at_least(1)
                 .at_most(1000000));
  schema.add(integer_key("translation.walker_outstanding", 4, "walks",
                         "table walks (DMA reads) the walker keeps in flight at once")
                 .at_least(1)
                 .at_most(256));  // one thread and one read buffer each
  schema.add(integer_key("translation.mpt_cache_entries", 1024, "entries", "MPT cache size")
                 .at_least(1)
                 .at_most(1 << 24));
  schema.add(integer_key("translation.mpt_cache_ways", 4, "ways", "MPT cache associativity")
                 .at_least(1)
                 .at_most(1024));
  schema.add(integer_key("translation.mtt_cache_entries", 4096, "entries",
                         "MTT cache size (page translations)")
                 .at_least(1)
                 .at_most(1 << 24));
  schema.add(integer_key("translation.mtt_cache_ways", 8, "ways", "MTT cache associativity")
                 .at_least(1)
                 .at_most(1024));
  schema.add(
      config::string_key("translation.replacement", "lru", "cache replacement: lru or random")
          .one_of({"lru", "random"}));
  schema.add(config::string_key("translation.mpt_cache_impl", "model",
                                "the MPT cache's implementation: model, or rtl (the verilated "
                                "rtl/translation_cache; LRU at a verilated geometry)")
                 .one_of({"model", "rtl"}));
  schema.add(config::string_key("translation.mtt_cache_impl", "model",
                                "the MTT cache's implementation: model, or rtl (the verilated "
                                "rtl/translation_cache; LRU at a verilated geometry)")
                 .one_of({"model", "rtl"}));
  schema.add(integer_key("translation.prefetch_entries", 0, "entries",
                         "MTT entries fetched after a missing one, same MR, in the same read")
                 .at_least(0)
                 .at_most(4096));
  schema.add(integer_key("translation.mpt_entries", 65536, "entries",
                         "MPT size in host memory: the most MRs at once")
                 .at_least(1)
                 .at_most(1 << 24));
  schema.add(integer_key("translation.mtt_entries", 1 << 22, "entries",
                         "MTT size in host memory: the most registered pages at once")
                 .at_least(1)
                 .at_most(1ULL << 32));
  for (const auto& [ways, entries] :
       {std::pair{"translation.mpt_cache_ways", "translation.mpt_cache_entries"},
        std::pair{"translation.mtt_cache_ways", "translation.mtt_cache_entries"}}) {
    schema.add_check({ways, entries}, [ways = ways, entries = entries](const config::Json& doc) {
      // The translation sweep sets the MTT cache size per point and checks
      // its sizes against the ways itself; it never reads translation.mtt_cache_entries.
      if (std::string(entries) == "translation.mtt_cache_entries" &&
          config::at_path(doc, "experiment") == "translation") {
        return std::optional<config::Violation>();
      }
      return ways_violation(doc, ways, entries);
    });
  }
  const auto verilated = [](const auto& geometries) {
    return std::vector<CacheGeometry>(std::begin(geometries), std::end(geometries));
  };
  for (const CacheKeys& keys :
       {CacheKeys{"translation.mpt_cache_impl", "translation.mpt_cache_entries",
                  "translation.mpt_cache_ways", false, verilated(kVerilatedMptCacheGeometries)},
        CacheKeys{"translation.mtt_cache_impl", "translation.mtt_cache_entries",
                  "translation.mtt_cache_ways", true,
                  verilated(kVerilatedTranslationCacheGeometries)}}) {
    schema.add_check({keys.impl, "translation.replacement", keys.entries, keys.ways},
                     [keys](const config::Json& doc) { return rtl_cache_violation(doc, keys); });
  }
}

IcmLayout icm_layout(std::uint64_t mpt_entries, std::uint64_t mtt_entries, std::uint64_t icm_base) {
  IcmLayout icm;
  icm.mpt_base = icm_base;
  icm.mpt_entries = static_cast<std::uint32_t>(mpt_entries);
  icm.mtt_base = icm_base + icm.mpt_entries * std::uint64_t{kMptEntryBytes};
  icm.mtt_entries = mtt_entries;
  return icm;
}

IcmLayout icm_layout(const config::Section& translation, std::uint64_t icm_base) {
  return icm_layout(translation.integer("mpt_entries"), translation.integer("mtt_entries"),
                    icm_base);
}

MemoryTranslationConfig memory_translation_config(const config::Section& translation,
                                                  std::uint64_t icm_base,
                                                  std::optional<std::uint32_t> mtt_cache_entries) {
  const auto integer = [&translation](const char* key) {
    return static_cast<std::uint32_t>(translation.integer(key));
  };
  const Replacement replacement =
      translation.text("replacement") == "lru" ? Replacement::kLru : Replacement::kRandom;
  MemoryTranslationConfig c;
  c.icm = icm_layout(translation, icm_base);
  c.mpt_cache = {integer("mpt_cache_entries"), integer("mpt_cache_ways"), replacement};
  c.mtt_cache = {mtt_cache_entries ? *mtt_cache_entries : integer("mtt_cache_entries"),
                 integer("mtt_cache_ways"), replacement};
  c.clock_mhz = translation.number("clock_mhz");
  c.hit_cycles = integer("hit_cycles");
  c.initiation_interval_cycles = integer("initiation_interval_cycles");
  c.walker_outstanding = integer("walker_outstanding");
  c.prefetch_entries = integer("prefetch_entries");
  c.seed = translation.stream_seed_named("mtt");  // the section's name until it took the unit's
  return c;
}

}  // namespace rnicsim
