#include "mtt/mtt_config.hpp"

#include <optional>

namespace rnicsim {
namespace {

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

}  // namespace

void declare_mtt_keys(config::Schema& schema) {
  using config::integer_key;
  schema.add(config::number_key("mtt.clock_mhz", 250, "MHz", "clock of the translation unit")
                 .at_least(1)
                 .at_most(100000));  // 1 MHz .. 100 GHz: a cycle count stays a sane time
  schema.add(integer_key("mtt.hit_cycles", 4, "cycles",
                         "latency of a translation whose entries are all cached")
                 .at_least(0)
                 .at_most(1000000));
  schema.add(integer_key("mtt.mpt_cache_entries", 1024, "entries", "MPT cache size")
                 .at_least(1)
                 .at_most(1 << 24));
  schema.add(integer_key("mtt.mpt_cache_ways", 4, "ways", "MPT cache associativity")
                 .at_least(1)
                 .at_most(1024));
  schema.add(integer_key("mtt.mtt_cache_entries", 4096, "entries",
                         "MTT cache size (page translations)")
                 .at_least(1)
                 .at_most(1 << 24));
  schema.add(integer_key("mtt.mtt_cache_ways", 8, "ways", "MTT cache associativity")
                 .at_least(1)
                 .at_most(1024));
  schema.add(config::string_key("mtt.replacement", "lru", "cache replacement: lru or random")
                 .one_of({"lru", "random"}));
  schema.add(integer_key("mtt.prefetch_entries", 0, "entries",
                         "MTT entries fetched after a missing one, same MR, in the same read")
                 .at_least(0)
                 .at_most(4096));
  schema.add(integer_key("mtt.mpt_entries", 65536, "entries",
                         "MPT size in host memory: the most MRs at once")
                 .at_least(1)
                 .at_most(1 << 24));
  schema.add(integer_key("mtt.mtt_entries", 1 << 22, "entries",
                         "MTT size in host memory: the most registered pages at once")
                 .at_least(1)
                 .at_most(1ULL << 32));
  for (const auto& [ways, entries] : {std::pair{"mtt.mpt_cache_ways", "mtt.mpt_cache_entries"},
                                      std::pair{"mtt.mtt_cache_ways", "mtt.mtt_cache_entries"}}) {
    schema.add_check({ways, entries}, [ways = ways, entries = entries](const config::Json& doc) {
      return ways_violation(doc, ways, entries);
    });
  }
}

IcmLayout icm_layout(const config::Json& doc, std::uint64_t icm_base) {
  IcmLayout icm;
  icm.mpt_base = icm_base;
  icm.mpt_entries = config::at_path(doc, "mtt.mpt_entries").get<std::uint32_t>();
  icm.mtt_base = icm_base + icm.mpt_entries * std::uint64_t{kMptEntryBytes};
  icm.mtt_entries = config::at_path(doc, "mtt.mtt_entries").get<std::uint64_t>();
  return icm;
}

MemoryTranslationConfig memory_translation_config(const config::Json& doc,
                                                  std::uint64_t icm_base) {
  const auto integer = [&doc](const char* key) {
    return config::at_path(doc, key).get<std::uint64_t>();
  };
  const Replacement replacement = config::at_path(doc, "mtt.replacement").get<std::string>() == "lru"
                                      ? Replacement::kLru
                                      : Replacement::kRandom;
  MemoryTranslationConfig c;
  c.icm = icm_layout(doc, icm_base);
  c.mpt_cache = {static_cast<std::uint32_t>(integer("mtt.mpt_cache_entries")),
                 static_cast<std::uint32_t>(integer("mtt.mpt_cache_ways")), replacement};
  c.mtt_cache = {static_cast<std::uint32_t>(integer("mtt.mtt_cache_entries")),
                 static_cast<std::uint32_t>(integer("mtt.mtt_cache_ways")), replacement};
  c.clock_mhz = config::at_path(doc, "mtt.clock_mhz").get<double>();
  c.hit_cycles = static_cast<std::uint32_t>(integer("mtt.hit_cycles"));
  c.prefetch_entries = static_cast<std::uint32_t>(integer("mtt.prefetch_entries"));
  c.seed = integer("seed");
  for (const auto& [ways, entries] : {std::pair{"mtt.mpt_cache_ways", "mtt.mpt_cache_entries"},
                                      std::pair{"mtt.mtt_cache_ways", "mtt.mtt_cache_entries"}}) {
    config::require_checked(ways_violation(doc, ways, entries), "memory_translation_config");
  }
  return c;
}

}  // namespace rnicsim
