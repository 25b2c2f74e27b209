#include "program/experiments/translation/translation_experiment.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>
#include <random>
#include <string>

#include "common/memory_budget.hpp"
#include "common/module_macros.hpp"
#include "common/simulation.hpp"
#include "common/top_values.hpp"
#include "common/time_units.hpp"
#include "system/testbed.hpp"
#include "system/application_api.hpp"

namespace rnicsim {
namespace {


constexpr double kP99 = 0.99;
// Per registered page, what the run holds: the address space's page-table
// node, the driver's MTT entry in host memory and the frame lists of
// registration.
constexpr std::uint64_t kBytesPerRegisteredPage = 128;
constexpr std::uint64_t kMaxPagesPerMr = std::uint64_t{1} << 24;
// Per walk slot of the unit: its thread (about 5.5 KiB measured at 2048 slots)
// besides its read buffer.
constexpr std::uint64_t kBytesPerWalkerThread = 8192;

struct Access {
  std::uint32_t mr;
  std::uint64_t offset;
};

// The seeded stream of accesses, each `access_bytes` inside one page, drawn
// one at a time: warm-up first, the measured part continuing where it
// stopped. Every point replays the same stream from the seed.
class AccessStream {
 public:
  AccessStream(const TranslationTestConfig& c)
      : c_(c),
        pages_(std::uint64_t{c.mrs} * c.pages_per_mr),
        slots_(c.page_bytes / c.access_bytes),
        random_(c.seed) {}

  Access next() {
    const std::uint64_t i = drawn_++;
    const std::uint64_t page = c_.sequential ? i % pages_ : random_() % pages_;
    const std::uint64_t slot = c_.sequential ? 0 : random_() % slots_;
    return {static_cast<std::uint32_t>(page / c_.pages_per_mr),
            (page % c_.pages_per_mr) * c_.page_bytes + slot * c_.access_bytes};
  }

 private:
  const TranslationTestConfig& c_;
  std::uint64_t pages_;
  std::uint64_t slots_;
  std::mt19937_64 random_;
  std::uint64_t drawn_ = 0;
};

// Runs the points one after another, keeping `in_flight` translations
// outstanding through the unit's request port (1: each waits for the one
// before, as a single blocking caller would).
class TranslationLoad : public sc_core::sc_module, public TranslationRequester {
 public:
  RNICSIM_PROCESS_MODULE(TranslationLoad);

  TranslationLoad(const sc_core::sc_module_name& name, const TranslationTestConfig& config,
                  MemoryTranslation& unit, std::vector<ibv_mr*> mrs, std::uint32_t pd,
                  RunProgress& progress)
      : sc_core::sc_module(name),
        config_(config),
        unit_(unit),
        mrs_(std::move(mrs)),
        pd_(pd),
        progress_(progress),
        started_(config.in_flight) {
    for (std::uint32_t tag = config.in_flight; tag > 0; --tag) free_tags_.push_back(tag - 1);
    SC_THREAD(run);
  }

  const std::vector<TranslationPoint>& points() const { return points_; }

  void translation_done(const TranslationResponse& response) override {
    if (response.result.status != TranslationStatus::kOk) {
      SC_REPORT_ERROR(name(), ("translation failed: " + to_string(response.result.status)).c_str());
    }
    if (took_ns_ != nullptr) {
      const double took = to_ns(sim_now() - started_[response.tag]);
      took_ns_->add(took);
      took_sum_ns_ += took;
    }
    free_tags_.push_back(static_cast<std::uint32_t>(response.tag));
    answered_.notify();
  }

 private:
  // Submits `count` accesses, at most in_flight at once, and waits for all.
  void translate(MemoryTranslation& unit, AccessStream& stream, std::uint64_t count) {
    for (std::uint64_t i = 0; i < count; ++i) {
      while (free_tags_.empty()) sc_core::wait(answered_);
      const std::uint32_t tag = free_tags_.back();
      free_tags_.pop_back();
      started_[tag] = sim_now();
      const Access a = stream.next();
      const ibv_mr& mr = *mrs_[a.mr];
      unit.nic2mtt->submit(*this, TranslationRequest{tag, mr.lkey, mr.addr + a.offset,
                                                     config_.access_bytes, 0, pd_});
      progress_.advance();
    }
    while (free_tags_.size() < config_.in_flight) sc_core::wait(answered_);
  }

  void run() {
    for (std::size_t k = 0; k < config_.cache_entries.size(); ++k) {
      MemoryTranslation& unit = unit_;
      CacheGeometry point = config_.testbed.nodes[0].nic.translation.mtt_cache;
      point.entries = static_cast<std::uint32_t>(config_.cache_entries[k]);
      unit.restart(point);
      AccessStream stream(config_);
      translate(unit, stream, config_.warmup_accesses);
      const std::uint64_t hits = unit.mtt_cache().hits();
      const std::uint64_t misses = unit.mtt_cache().misses();
      const std::uint64_t mpt_hits = unit.mpt_cache().hits();
      const std::uint64_t mpt_misses = unit.mpt_cache().misses();
      const MemoryTranslationStats before = unit.stats();
      // An access walks at most twice (its MPT and its MTT entry).
      TopValues walk_ns(TopValues::capacity_for(kP99, 2 * config_.accesses));
      double walk_sum_ns = 0;
      unit.set_walk_observer([&](const sc_core::sc_time& took) {
        walk_ns.add(to_ns(took));
        walk_sum_ns += to_ns(took);
      });
      TopValues took_ns(TopValues::capacity_for(kP99, config_.accesses));
      took_ns_ = &took_ns;
      took_sum_ns_ = 0;
      const sc_core::sc_time start = sim_now();
      translate(unit, stream, config_.accesses);
      const sc_core::sc_time took = sim_now() - start;
      took_ns_ = nullptr;
      unit.set_walk_observer(nullptr);
      TranslationPoint p;
      p.cache_entries = config_.cache_entries[k];
      p.working_set_pages = std::uint64_t{config_.mrs} * config_.pages_per_mr;
      const double mtt_lookups = static_cast<double>(unit.mtt_cache().hits() - hits +
                                                     unit.mtt_cache().misses() - misses);
      p.hit_rate = static_cast<double>(unit.mtt_cache().hits() - hits) / mtt_lookups;
      const double mpt_lookups = static_cast<double>(unit.mpt_cache().hits() - mpt_hits +
                                                     unit.mpt_cache().misses() - mpt_misses);
      p.mpt_hit_rate = static_cast<double>(unit.mpt_cache().hits() - mpt_hits) / mpt_lookups;
      p.mean_translate_ns = took_sum_ns_ / static_cast<double>(took_ns.count());
      p.p99_translate_ns = took_ns.percentile(kP99);
      p.translations_per_us = static_cast<double>(config_.accesses) / (to_ns(took) / 1000.0);
      const MemoryTranslationStats& after = unit.stats();
      p.walks = after.mpt_walks + after.mtt_walks - before.mpt_walks - before.mtt_walks;
      p.merges = after.mpt_merges + after.mtt_merges - before.mpt_merges - before.mtt_merges;
      if (walk_ns.count() > 0) {
        p.mean_walk_ns = walk_sum_ns / static_cast<double>(walk_ns.count());
        p.p99_walk_ns = walk_ns.percentile(kP99);
      }
      points_.push_back(p);
    }
    finish_workload();
  }

  const TranslationTestConfig& config_;
  MemoryTranslation& unit_;
  std::vector<ibv_mr*> mrs_;
  std::uint32_t pd_;
  RunProgress& progress_;
  std::vector<sc_core::sc_time> started_;  // by tag
  std::vector<std::uint32_t> free_tags_;
  sc_core::sc_event answered_;
  TopValues* took_ns_ = nullptr;  // while measuring
  double took_sum_ns_ = 0;
  std::vector<TranslationPoint> points_;
};

std::optional<config::Violation> access_violation(const config::Json& doc) {
  const std::uint64_t access = config::integer_at(doc, "translation_test.access_bytes");
  const std::uint64_t page = config::integer_at(doc, "host.page_bytes");
  if (page % access == 0) return std::nullopt;
  return config::Violation{"translation_test.access_bytes",
                           "must divide host.page_bytes (got " + std::to_string(access) +
                               ", host.page_bytes is " + std::to_string(page) + ")"};
}

std::optional<config::Violation> cache_sizes_violation(const config::Json& doc) {
  const std::uint64_t ways = config::integer_at(doc, "translation.mtt_cache_ways");
  const auto sizes =
      config::at_path(doc, "translation_test.cache_entries").get<std::vector<std::uint64_t>>();
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] % ways != 0) {
      return config::Violation{"translation_test.cache_entries",
                               "every size must be a multiple of translation.mtt_cache_ways (got " +
                                   std::to_string(sizes[i]) + " at index " + std::to_string(i) +
                                   ", translation.mtt_cache_ways is " + std::to_string(ways) + ")"};
    }
  }
  return std::nullopt;
}

// Pages per buffer: translation_test.mr_bytes over the page size (rounded up) when
// the working set is given in bytes, else translation_test.pages_per_mr.
std::uint64_t pages_per_mr_of(const config::Json& doc) {
  const std::uint64_t bytes = config::integer_at(doc, "translation_test.mr_bytes");
  if (bytes == 0) return config::integer_at(doc, "translation_test.pages_per_mr");
  const std::uint64_t page = config::integer_at(doc, "host.page_bytes");
  return (bytes + page - 1) / page;
}

std::optional<config::Violation> mr_pages_violation(const config::Json& doc) {
  const std::uint64_t pages = pages_per_mr_of(doc);
  if (pages <= kMaxPagesPerMr) return std::nullopt;
  return config::Violation{"translation_test.mr_bytes",
                           "gives " + std::to_string(pages) +
                               " pages per buffer of host.page_bytes; at most " +
                               std::to_string(kMaxPagesPerMr)};
}

std::optional<config::Violation> mrs_violation(const config::Json& doc) {
  const std::uint64_t mrs = config::integer_at(doc, "translation_test.mrs");
  const std::uint64_t mpt_entries = config::integer_at(doc, "translation.mpt_entries");
  if (mrs <= mpt_entries) return std::nullopt;
  return config::Violation{"translation_test.mrs",
                           "exceeds translation.mpt_entries (got " + std::to_string(mrs) +
                               ", translation.mpt_entries is " + std::to_string(mpt_entries) + ")"};
}

std::optional<config::Violation> pages_violation(const config::Json& doc) {
  const std::uint64_t pages =
      config::integer_at(doc, "translation_test.mrs") * pages_per_mr_of(doc);
  const std::uint64_t mtt_entries = config::integer_at(doc, "translation.mtt_entries");
  if (pages <= mtt_entries) return std::nullopt;
  const bool in_bytes = config::integer_at(doc, "translation_test.mr_bytes") != 0;
  return config::Violation{in_bytes ? "translation_test.mr_bytes" : "translation_test.pages_per_mr",
                           "translation_test.mrs x the pages per buffer (" + std::to_string(pages) +
                               ") exceeds translation.mtt_entries (" + std::to_string(mtt_entries) +
                               ")"};
}

// Where the host places the application's pages (Host does the same).
std::uint64_t pool_base(const config::Json& doc) {
  return node_page_pool_base(config::integer_at(doc, "translation.mpt_entries"),
                             config::integer_at(doc, "translation.mtt_entries"),
                             config::integer_at(doc, "host.page_bytes"));
}

// Only the translation experiment places its tables and pages in host memory.
std::optional<config::Violation> memory_violation(const config::Json& doc) {
  if (config::at_path(doc, "experiment") != "translation") return std::nullopt;
  const std::uint64_t memory = config::integer_at(doc, "host.memory_bytes");
  const std::uint64_t page = config::integer_at(doc, "host.page_bytes");
  const std::uint64_t mrs = config::integer_at(doc, "translation_test.mrs");
  const std::uint64_t pages = mrs * pages_per_mr_of(doc);
  const std::uint64_t base = pool_base(doc);
  // One spare page per MR: a buffer need not start on a page boundary.
  const std::uint64_t frames = pages + mrs;
  if (base < memory && (memory - base) / page >= frames) return std::nullopt;
  // The key bounds alone allow 2^44 pages of 1 GiB: say so rather than wrap.
  const bool countable = frames <= (std::numeric_limits<std::uint64_t>::max() - base) / page;
  return config::Violation{"host.memory_bytes",
                           "too small for the NIC's tables and the working set (got " +
                               std::to_string(memory) + ", they need " +
                               (countable ? std::to_string(base + frames * page)
                                          : std::string("more than 2^64")) +
                               ")"};
}

// Only the translation experiment registers pages; its one translation unit
// holds the caches of one point at a time.
std::optional<config::Violation> memory_budget_violation(const config::Json& doc) {
  if (config::at_path(doc, "experiment") != "translation") return std::nullopt;
  const std::uint64_t pages =
      config::integer_at(doc, "translation_test.mrs") * pages_per_mr_of(doc);
  const std::uint64_t mpt_entries = config::integer_at(doc, "translation.mpt_cache_entries");
  const auto sizes =
      config::at_path(doc, "translation_test.cache_entries").get<std::vector<std::uint64_t>>();
  const std::uint64_t largest = *std::max_element(sizes.begin(), sizes.end());
  const std::uint64_t walk_bytes = std::max<std::uint64_t>(
      kMptEntryBytes,
      (1 + config::integer_at(doc, "translation.prefetch_entries")) * kMttEntryBytes);
  const long double bytes =
      static_cast<long double>(pages) * kBytesPerRegisteredPage + kSimulatorBaselineBytes +
      static_cast<long double>(largest) * TranslationCache<std::uint64_t>::kLineBytes +
      static_cast<long double>(mpt_entries) * TranslationCache<MptEntry>::kLineBytes +
      static_cast<long double>(config::integer_at(doc, "translation.walker_outstanding")) *
          static_cast<long double>(walk_bytes + kBytesPerWalkerThread);
  if (bytes <= kRunMemoryBudgetBytes) return std::nullopt;
  return config::Violation{
      "translation_test.cache_entries",
      "the translation unit's caches and walker (the largest MTT cache of the points, an MPT "
      "cache of translation.mpt_cache_entries and translation.walker_outstanding walk slots) and "
      "the " +
          std::to_string(pages) + " registered pages need about " +
          std::to_string(static_cast<std::uint64_t>(bytes / kMiB)) +
          " MiB with the simulator's own; a run holds at most " +
          std::to_string(kRunMemoryBudgetBytes / kMiB) +
          " MiB: smaller points, a smaller MPT cache, fewer walk slots or fewer pages"};
}

}  // namespace

void declare_translation_test_keys(config::Schema& schema) {
  // The experiment's keys left "translation" to the translation unit.
  for (const char* key : {"access_bytes", "accesses", "cache_entries", "in_flight", "mr_bytes",
                          "mrs", "pages_per_mr", "pattern", "warmup_accesses"}) {
    schema.add_rename(std::string("translation.") + key, std::string("translation_test.") + key);
  }
  schema.add(config::integer_list_key("translation_test.cache_entries",
                                      {64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384}, "entries",
                                      "MTT cache sizes to measure, one point each")
                 .at_least(1)
                 .at_most(1 << 24));
  schema.add(config::integer_key("translation_test.mrs", 16, "MRs", "registered buffers")
                 .at_least(1)
                 .at_most(1 << 20));
  schema.add(config::integer_key("translation_test.pages_per_mr", 256, "pages", "pages per buffer")
                 .at_least(1)
                 .at_most(kMaxPagesPerMr));
  schema.add(config::integer_key("translation_test.mr_bytes", 0, "bytes",
                                 "bytes per buffer, in pages of host.page_bytes (rounded up), "
                                 "so the page size changes the page count; 0: "
                                 "translation_test.pages_per_mr pages (then not read)")
                 .at_least(0)
                 .at_most(static_cast<double>(std::uint64_t{1} << 50)));
  schema.add(config::string_key("translation_test.pattern", "random",
                                "random: any page of the working set; sequential: page after "
                                "page, over and over")
                 .one_of({"random", "sequential"}));
  schema.add(config::integer_key("translation_test.accesses", 20000, "accesses",
                                 "translations measured per point")
                 .at_least(1)
                 .at_most(100000000));
  schema.add(config::integer_key("translation_test.warmup_accesses", 20000, "accesses",
                                 "translations before measuring, to fill the caches")
                 .at_least(0)
                 .at_most(100000000));
  schema.add(config::integer_key("translation_test.access_bytes", 64, "bytes",
                                 "bytes of each access (inside one page)")
                 .at_least(1)
                 .at_most(1 << 30));
  schema.add(config::integer_key("translation_test.in_flight", 1, "requests",
                                 "translations kept in flight through the unit's request port "
                                 "(1: each waits for the one before)")
                 .at_least(1)
                 .at_most(4096));
  schema.add_check({"translation_test.access_bytes", "host.page_bytes"}, access_violation);
  schema.add_check({"translation_test.cache_entries", "translation.mtt_cache_ways"},
                   cache_sizes_violation);
  schema.add_check({"translation_test.mrs", "translation.mpt_entries"}, mrs_violation);
  schema.add_check({"translation_test.mr_bytes", "host.page_bytes"}, mr_pages_violation);
  schema.add_check({"translation_test.pages_per_mr", "translation_test.mr_bytes", "host.page_bytes",
                    "translation_test.mrs", "translation.mtt_entries"},
                   pages_violation);
  schema.add_check({"host.memory_bytes", "host.page_bytes", "translation_test.mrs",
                    "translation_test.pages_per_mr", "translation_test.mr_bytes",
                    "translation.mpt_entries", "translation.mtt_entries"},
                   memory_violation);
  schema.add_check(
      {"translation_test.cache_entries", "translation.mpt_cache_entries", "translation_test.mrs",
       "translation_test.pages_per_mr", "translation_test.mr_bytes", "host.page_bytes",
       "translation.walker_outstanding", "translation.prefetch_entries"},
      memory_budget_violation);
}

TranslationTestConfig translation_test_config(config::RunConfig& run) {
  const config::Section test = run.section("translation_test");
  const auto integer = [&test](const char* key) { return test.integer(key); };
  TranslationTestConfig c;
  c.cache_entries = test.integers("cache_entries");
  c.mrs = static_cast<std::uint32_t>(integer("mrs"));
  const std::uint64_t mr_bytes = integer("mr_bytes");
  c.sequential = test.text("pattern") == "sequential";
  c.accesses = integer("accesses");
  c.warmup_accesses = integer("warmup_accesses");
  c.access_bytes = static_cast<std::uint32_t>(integer("access_bytes"));
  c.in_flight = static_cast<std::uint32_t>(integer("in_flight"));
  c.seed = test.stream_seed_named("translation");  // the section's name before the unit took it
  // The sweep sets the MTT cache size point by point (translation_test.cache_entries).
  TestbedRequest request;
  request.alone_role = "subject";
  request.host_software = true;
  request.mtt_cache_entries = static_cast<std::uint32_t>(c.cache_entries.front());
  c.testbed = testbed_config(run, request);
  c.page_bytes = c.testbed.nodes[0].host.page_bytes;
  c.pages_per_mr = static_cast<std::uint32_t>(
      mr_bytes != 0 ? (mr_bytes + c.page_bytes - 1) / c.page_bytes : integer("pages_per_mr"));
  c.mr_bytes = mr_bytes;
  return c;
}

TranslationTestResult run_translation_test(const TranslationTestConfig& config,
                                           RunProgress& progress) {
  require_picosecond_resolution();
  Testbed testbed("testbed", config.testbed);
  Node& node = testbed.node(0);
  HostSoftware& software = node.software();
  ibv_pd* pd = software.driver.ibv_alloc_pd();
  std::vector<ibv_mr*> mrs;
  for (std::uint32_t i = 0; i < config.mrs; ++i) {
    const std::uint64_t bytes = std::uint64_t{config.pages_per_mr} * config.page_bytes;
    mrs.push_back(software.driver.ibv_reg_mr(pd, software.process.allocate(bytes), bytes,
                                             IBV_ACCESS_LOCAL_WRITE));
  }
  // The load stands for the NIC's requester, one design point after another.
  TranslationLoad load("load", config, node.nic.translation, mrs, pd->handle, progress);
  progress.start("translations",
                 config.cache_entries.size() * (config.warmup_accesses + config.accesses));
  simulate_workload(1);
  progress.finish();
  return TranslationTestResult{load.points(), testbed.statistics()};
}

}  // namespace rnicsim
