#pragma once
// The translation experiment: the NIC's MTT cache against a working set.
// The driver registers `mrs` buffers of `pages_per_mr` scattered pages; a
// stream of accesses (random or sequential over the pages) is translated by
// the node's translation unit, restarted with each cache size, one point
// after the other on the same DMA engine and PCIe link, so a miss costs a
// real DMA read. The load
// keeps `in_flight` translations outstanding through the unit's request
// port: with more than one, misses overlap (up to translation.walker_outstanding
// walks) and hits pass them.
#include <cstdint>
#include <string>
#include <vector>

#include "common/run_progress.hpp"
#include "config/config.hpp"
#include "config/run_config.hpp"
#include "system/testbed.hpp"

namespace rnicsim {

struct TranslationTestConfig {
  std::vector<std::uint64_t> cache_entries;  // the MTT cache sizes to measure
  std::uint32_t mrs = 0;
  std::uint32_t pages_per_mr = 0;
  std::uint64_t mr_bytes = 0;  // the buffer's size when given in bytes, else 0
  bool sequential = false;
  std::uint64_t accesses = 0;         // measured per point
  std::uint64_t warmup_accesses = 0;  // translated first, not measured
  std::uint32_t access_bytes = 0;
  std::uint32_t in_flight = 1;  // translations outstanding at once
  std::uint64_t page_bytes = 0;  // node.host.page_bytes
  std::uint64_t seed = 0;        // the access stream
  // The host and NIC under test; the NIC's MTT cache is resized per point.
  TestbedConfig testbed;
};

struct TranslationPoint {
  std::uint64_t cache_entries = 0;
  std::uint64_t working_set_pages = 0;
  double hit_rate = 0;      // MTT lookups that hit, measured accesses only
  double mpt_hit_rate = 0;
  double mean_translate_ns = 0;  // from submitting the request to its response
  double p99_translate_ns = 0;
  double translations_per_us = 0;  // measured accesses over the time they took
  std::uint64_t walks = 0;   // MPT + MTT walks during the measured accesses
  std::uint64_t merges = 0;  // misses of the measured accesses that joined a pending walk
  double mean_walk_ns = 0;  // DMA time of those walks (0 when there were none)
  double p99_walk_ns = 0;
};

struct TranslationTestResult {
  std::vector<TranslationPoint> points;
  nlohmann::json statistics;  // every block's at the end (Testbed::statistics): statistics.json
};

void declare_translation_test_keys(config::Schema& schema);
// Reads a configuration config::load has checked (declare_translation_test_keys
// adds the rules that tie the working set to the tables, caches and memory).
// The testbed is the node roles.subject names, alone: the sweep measures its
// translation unit.
TranslationTestConfig translation_test_config(config::RunConfig& run);

// Elaborates and simulates; call once per process. Throws
// SimulatedTimeExceeded or Interrupted (simulation.hpp).
TranslationTestResult run_translation_test(const TranslationTestConfig& config,
                                           RunProgress& progress);

}  // namespace rnicsim
