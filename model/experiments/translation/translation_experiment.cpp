#include "experiments/translation/translation_experiment.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <random>

#include "common/module_macros.hpp"
#include "common/simulation.hpp"
#include "common/top_values.hpp"
#include "common/time_units.hpp"
#include "dma/dma_config.hpp"
#include "driver/address_space.hpp"
#include "driver/verbs.hpp"
#include "host_memory/host_memory_config.hpp"
#include "host_memory/page_allocator.hpp"
#include "mtt/mtt_config.hpp"
#include "system/host_dma_path.hpp"

namespace rnicsim {
namespace {

constexpr std::uint64_t kIcmBase = 16ULL << 20;     // the NIC's tables
constexpr std::uint64_t kVirtualBase = 1ULL << 40;  // the application's buffers

constexpr double kP99 = 0.99;
constexpr std::uint64_t kMiB = 1ULL << 20;
// What the run may hold: the translation units' caches (one unit per point)
// and, per registered page, the address space's page-table node, the
// driver's MTT entry in host memory and the frame lists of registration.
constexpr std::uint64_t kMemoryBudgetBytes = 512 * kMiB;
constexpr std::uint64_t kBytesPerRegisteredPage = 128;

void check_memory_budget(const TranslationTestConfig& c, const std::string& source) {
  const MemoryTranslationConfig& t = c.translation;
  long double bytes = static_cast<long double>(std::uint64_t{c.mrs} * c.pages_per_mr) *
                      kBytesPerRegisteredPage;
  for (const std::uint64_t entries : c.cache_entries) {
    bytes += static_cast<long double>(entries) * TranslationCache<std::uint64_t>::kLineBytes +
             static_cast<long double>(t.mpt_cache.entries) * TranslationCache<MptEntry>::kLineBytes;
  }
  if (bytes <= kMemoryBudgetBytes) return;
  throw config::ConfigError(
      source, "translation.cache_entries",
      "the translation units' caches (one unit per point, each with its MTT cache of that size "
      "and an MPT cache of mtt.mpt_cache_entries) and the " +
          std::to_string(std::uint64_t{c.mrs} * c.pages_per_mr) +
          " registered pages need about " + std::to_string(static_cast<std::uint64_t>(bytes / kMiB)) +
          " MiB; a translation run holds at most " + std::to_string(kMemoryBudgetBytes / kMiB) +
          " MiB: fewer or smaller points, a smaller MPT cache or fewer pages");
}

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

// Runs the points one after another.
class TranslationLoad : public sc_core::sc_module {
 public:
  RNICSIM_PROCESS_MODULE(TranslationLoad);

  TranslationLoad(const sc_core::sc_module_name& name, const TranslationTestConfig& config,
                  std::vector<MemoryTranslation*> units, std::vector<ibv_mr*> mrs,
                  std::uint32_t pd, RunProgress& progress)
      : sc_core::sc_module(name),
        config_(config),
        units_(std::move(units)),
        mrs_(std::move(mrs)),
        pd_(pd),
        progress_(progress) {
    SC_THREAD(run);
  }

  const std::vector<TranslationPoint>& points() const { return points_; }

 private:
  void translate(MemoryTranslation& unit, const Access& a) {
    const ibv_mr& mr = *mrs_[a.mr];
    const TranslationResult r =
        unit.translate(mr.lkey, mr.addr + a.offset, config_.access_bytes, 0, pd_);
    if (r.status != TranslationStatus::kOk) {
      SC_REPORT_ERROR(name(), ("translation failed: " + to_string(r.status)).c_str());
    }
  }

  void run() {
    for (std::size_t k = 0; k < units_.size(); ++k) {
      MemoryTranslation& unit = *units_[k];
      AccessStream stream(config_);
      for (std::uint64_t i = 0; i < config_.warmup_accesses; ++i) {
        translate(unit, stream.next());
        progress_.advance();
      }
      const std::uint64_t hits = unit.mtt_cache().hits();
      const std::uint64_t misses = unit.mtt_cache().misses();
      const std::uint64_t mpt_hits = unit.mpt_cache().hits();
      const std::uint64_t mpt_misses = unit.mpt_cache().misses();
      const std::uint64_t walks = unit.stats().mpt_walks + unit.stats().mtt_walks;
      // An access walks at most twice (its MPT and its MTT entry).
      TopValues walk_ns(TopValues::capacity_for(kP99, 2 * config_.accesses));
      double walk_sum_ns = 0;
      unit.set_walk_observer([&](const sc_core::sc_time& took) {
        walk_ns.add(to_ns(took));
        walk_sum_ns += to_ns(took);
      });
      TopValues took_ns(TopValues::capacity_for(kP99, config_.accesses));
      double took_sum_ns = 0;
      for (std::uint64_t i = 0; i < config_.accesses; ++i) {
        const sc_core::sc_time start = sc_core::sc_time_stamp();
        translate(unit, stream.next());
        const double took = to_ns(sc_core::sc_time_stamp() - start);
        took_ns.add(took);
        took_sum_ns += took;
        progress_.advance();
      }
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
      p.mean_translate_ns = took_sum_ns / static_cast<double>(took_ns.count());
      p.p99_translate_ns = took_ns.percentile(kP99);
      p.walks = unit.stats().mpt_walks + unit.stats().mtt_walks - walks;
      if (walk_ns.count() > 0) {
        p.mean_walk_ns = walk_sum_ns / static_cast<double>(walk_ns.count());
        p.p99_walk_ns = walk_ns.percentile(kP99);
      }
      points_.push_back(p);
    }
  }

  const TranslationTestConfig& config_;
  std::vector<MemoryTranslation*> units_;
  std::vector<ibv_mr*> mrs_;
  std::uint32_t pd_;
  RunProgress& progress_;
  std::vector<TranslationPoint> points_;
};

}  // namespace

void declare_translation_test_keys(config::Schema& schema) {
  schema.add(config::integer_list_key("translation.cache_entries",
                                      {64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384},
                                      "entries", "MTT cache sizes to measure, one point each")
                 .at_least(1)
                 .at_most(1 << 24));
  schema.add(config::integer_key("translation.mrs", 16, "MRs", "registered buffers")
                 .at_least(1)
                 .at_most(1 << 20));
  schema.add(config::integer_key("translation.pages_per_mr", 256, "pages", "pages per buffer")
                 .at_least(1)
                 .at_most(1 << 24));
  schema.add(config::string_key("translation.pattern", "random",
                                "random: any page of the working set; sequential: page after "
                                "page, over and over")
                 .one_of({"random", "sequential"}));
  schema.add(config::integer_key("translation.accesses", 20000, "accesses",
                                 "translations measured per point")
                 .at_least(1)
                 .at_most(100000000));
  schema.add(config::integer_key("translation.warmup_accesses", 20000, "accesses",
                                 "translations before measuring, to fill the caches")
                 .at_least(0)
                 .at_most(100000000));
  schema.add(config::integer_key("translation.access_bytes", 64, "bytes",
                                 "bytes of each access (inside one page)")
                 .at_least(1)
                 .at_most(1 << 30));
}

TranslationTestConfig translation_test_config(const config::Json& doc, const std::string& source) {
  const auto integer = [&doc](const char* key) {
    return config::at_path(doc, key).get<std::uint64_t>();
  };
  TranslationTestConfig c;
  c.cache_entries = config::at_path(doc, "translation.cache_entries").get<std::vector<std::uint64_t>>();
  c.mrs = static_cast<std::uint32_t>(integer("translation.mrs"));
  c.pages_per_mr = static_cast<std::uint32_t>(integer("translation.pages_per_mr"));
  c.sequential = config::at_path(doc, "translation.pattern").get<std::string>() == "sequential";
  c.accesses = integer("translation.accesses");
  c.warmup_accesses = integer("translation.warmup_accesses");
  c.access_bytes = static_cast<std::uint32_t>(integer("translation.access_bytes"));
  c.page_bytes = host_page_bytes(doc, source);
  c.fragmentation = config::at_path(doc, "host.fragmentation").get<double>();
  c.seed = integer("seed");
  c.memory = host_memory_config(doc);
  c.pcie = pcie::pcie_config(doc, source);
  c.engine = dma_engine_config(doc, c.pcie);
  c.translation = memory_translation_config(doc, kIcmBase, source);

  const auto fail = [&source](const char* key, const std::string& reason) {
    throw config::ConfigError(source, key, reason);
  };
  if (c.access_bytes > c.page_bytes || c.page_bytes % c.access_bytes != 0) {
    fail("translation.access_bytes", "must divide host.page_bytes");
  }
  for (std::uint64_t entries : c.cache_entries) {
    if (entries % c.translation.mtt_cache.ways != 0) {
      fail("translation.cache_entries", "every size must be a multiple of mtt.mtt_cache_ways");
    }
  }
  const std::uint64_t pages = std::uint64_t{c.mrs} * c.pages_per_mr;
  if (c.mrs > c.translation.icm.mpt_entries) fail("translation.mrs", "exceeds mtt.mpt_entries");
  if (pages > c.translation.icm.mtt_entries) {
    fail("translation.pages_per_mr", "mrs x pages_per_mr exceeds mtt.mtt_entries");
  }
  const std::uint64_t pool_base =
      (c.translation.icm.end() + c.page_bytes - 1) / c.page_bytes * c.page_bytes;
  if (pool_base >= c.memory.size_bytes ||
      (c.memory.size_bytes - pool_base) / c.page_bytes < pages + c.mrs) {
    fail("host.memory_bytes", "too small for the NIC's tables and the working set");
  }
  check_memory_budget(c, source);
  return c;
}

TranslationTestResult run_translation_test(const TranslationTestConfig& config,
                                           RunProgress& progress) {
  require_picosecond_resolution();
  HostDmaPath host("host", config.memory, config.pcie, config.engine);

  const IcmLayout& icm = config.translation.icm;
  const std::uint64_t pool_base = (icm.end() + config.page_bytes - 1) / config.page_bytes * config.page_bytes;
  PageAllocator allocator(pool_base, config.memory.size_bytes - pool_base, config.page_bytes,
                          config.fragmentation, config.seed);
  AddressSpace space(allocator, kVirtualBase);
  VerbsDriver driver(host.memory, space, icm);
  ibv_pd* pd = driver.ibv_alloc_pd();
  std::vector<ibv_mr*> mrs;
  for (std::uint32_t i = 0; i < config.mrs; ++i) {
    const std::uint64_t bytes = std::uint64_t{config.pages_per_mr} * config.page_bytes;
    mrs.push_back(driver.ibv_reg_mr(pd, space.allocate(bytes), bytes, IBV_ACCESS_LOCAL_WRITE));
  }

  std::vector<std::unique_ptr<MemoryTranslation>> units;
  std::vector<MemoryTranslation*> unit_pointers;
  for (std::uint64_t entries : config.cache_entries) {
    MemoryTranslationConfig point = config.translation;
    point.mtt_cache.entries = static_cast<std::uint32_t>(entries);
    units.push_back(std::make_unique<MemoryTranslation>(
        ("translation_" + std::to_string(entries)).c_str(), point));
    units.back()->walker2dma.socket.bind(host.dma_engine.nic2dma);
    unit_pointers.push_back(units.back().get());
  }
  TranslationLoad load("load", config, unit_pointers, mrs, pd->handle, progress);
  progress.start("translations",
                 config.cache_entries.size() * (config.warmup_accesses + config.accesses));
  simulate();
  progress.finish();
  return TranslationTestResult{load.points()};
}

}  // namespace rnicsim
