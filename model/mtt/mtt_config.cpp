#include "mtt/mtt_config.hpp"

namespace rnicsim {

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
}

MemoryTranslationConfig memory_translation_config(const config::Json& doc,
                                                  std::uint64_t icm_base,
                                                  const std::string& source) {
  const auto integer = [&doc](const char* key) {
    return config::at_path(doc, key).get<std::uint64_t>();
  };
  const Replacement replacement = config::at_path(doc, "mtt.replacement").get<std::string>() == "lru"
                                      ? Replacement::kLru
                                      : Replacement::kRandom;
  MemoryTranslationConfig c;
  c.icm.mpt_base = icm_base;
  c.icm.mpt_entries = static_cast<std::uint32_t>(integer("mtt.mpt_entries"));
  c.icm.mtt_base = icm_base + c.icm.mpt_entries * std::uint64_t{kMptEntryBytes};
  c.icm.mtt_entries = integer("mtt.mtt_entries");
  c.mpt_cache = {static_cast<std::uint32_t>(integer("mtt.mpt_cache_entries")),
                 static_cast<std::uint32_t>(integer("mtt.mpt_cache_ways")), replacement};
  c.mtt_cache = {static_cast<std::uint32_t>(integer("mtt.mtt_cache_entries")),
                 static_cast<std::uint32_t>(integer("mtt.mtt_cache_ways")), replacement};
  c.clock_mhz = config::at_path(doc, "mtt.clock_mhz").get<double>();
  c.hit_cycles = static_cast<std::uint32_t>(integer("mtt.hit_cycles"));
  c.prefetch_entries = static_cast<std::uint32_t>(integer("mtt.prefetch_entries"));
  c.seed = integer("seed");
  if (c.mpt_cache.entries % c.mpt_cache.ways != 0) {
    throw config::ConfigError(source, "mtt.mpt_cache_ways", "must divide mtt.mpt_cache_entries");
  }
  if (c.mtt_cache.entries % c.mtt_cache.ways != 0) {
    throw config::ConfigError(source, "mtt.mtt_cache_ways", "must divide mtt.mtt_cache_entries");
  }
  return c;
}

}  // namespace rnicsim
