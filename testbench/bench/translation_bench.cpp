// Simulator speed of the translation unit behind its request port:
// translations per wall second and delta cycles per translation, for hits
// (the port's interval is the bound) and for misses that walk host memory
// (the walk slots are the bound). SystemC allows one elaboration per process,
// so each benchmark elaborates once, in its own run of the program
// (--benchmark_filter), and each iteration simulates 10 more microseconds.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <systemc>
#include <vector>

#include "common/module_macros.hpp"
#include "common/time_units.hpp"
#include "host/driver/address_space.hpp"
#include "host/driver/verbs.hpp"
#include "host/memory/host_memory.hpp"
#include "host/memory/page_allocator.hpp"
#include "nic/translation/memory_translation.hpp"

namespace rnicsim {
namespace {

constexpr std::uint64_t kIcm = 1ULL << 20;
constexpr std::uint32_t kPages = 1024;
constexpr std::uint32_t kInFlight = 16;
const sc_core::sc_time kStep = nanoseconds(10000);
const sc_core::sc_time kWarmUp = nanoseconds(40000);

// Keeps kInFlight translations outstanding, page after page of one MR.
class Requester : public sc_core::sc_module, public TranslationRequester {
 public:
  RNICSIM_PROCESS_MODULE(Requester);
  Requester(const sc_core::sc_module_name& name, MemoryTranslation& unit, const ibv_mr& mr,
            std::uint32_t pd)
      : sc_core::sc_module(name), unit_(unit), mr_(mr), pd_(pd) {
    SC_THREAD(run);
  }
  void translation_done(const TranslationResponse& response) override {
    if (response.result.status != TranslationStatus::kOk) SC_REPORT_ERROR(name(), "translation failed");
    --outstanding_;
    ++answered_count_;
    answered_.notify();
  }
  std::uint64_t answered() const { return answered_count_; }

 private:
  void run() {
    for (std::uint64_t i = 0;; ++i) {
      while (outstanding_ == kInFlight) sc_core::wait(answered_);
      ++outstanding_;
      const std::uint64_t va = mr_.addr + (i % kPages) * 4096 + 64;
      unit_.nic2mtt->submit(*this, TranslationRequest{i, mr_.lkey, va, 64, 0, pd_});
    }
  }
  MemoryTranslation& unit_;
  const ibv_mr& mr_;
  std::uint32_t pd_;
  std::uint32_t outstanding_ = 0;
  std::uint64_t answered_count_ = 0;
  sc_core::sc_event answered_;
};

void run_bench(benchmark::State& state, std::uint32_t mtt_cache_entries) {
  HostMemory memory("memory", HostMemoryConfig{1ULL << 32, nanoseconds(100)});
  PageAllocator allocator(16ULL << 20, 64ULL << 20, 4096, 1.0, 11);
  AddressSpace space(allocator, 1ULL << 40);
  MemoryTranslationConfig c;
  c.icm = IcmLayout{kIcm, 64, kIcm + 64 * kMptEntryBytes, 4096};
  c.mpt_cache = {16, 4, Replacement::kLru};
  c.mtt_cache = {mtt_cache_entries, 8, Replacement::kLru};
  c.clock_mhz = 250;
  c.hit_cycles = 4;
  c.initiation_interval_cycles = 1;
  c.walker_outstanding = 4;
  VerbsDriver driver(memory, space, c.icm, ibv_port_attr{});  // no NIC port: it only registers
  MemoryTranslation unit("translation", c);
  unit.walker2dma.socket.bind(memory.socket);
  ibv_pd* pd = driver.ibv_alloc_pd();
  ibv_mr* mr = driver.ibv_reg_mr(pd, space.allocate(kPages * 4096ULL), kPages * 4096ULL,
                                 IBV_ACCESS_LOCAL_WRITE);
  Requester requester("requester", unit, *mr, pd->handle);
  // Warm-up: the pools reach their size, and the hit benchmark's cache holds
  // all 1024 pages (walked four at a time, 100 ns each: 26 us).
  sc_core::sc_start(kWarmUp);

  const std::uint64_t answered_before = requester.answered();
  const std::uint64_t walks_before = unit.stats().mtt_walks;
  const std::uint64_t deltas_before = sc_core::sc_delta_count();
  for (auto _ : state) sc_core::sc_start(kStep);
  const std::uint64_t translations = requester.answered() - answered_before;
  state.SetItemsProcessed(static_cast<std::int64_t>(translations));
  state.counters["delta_cycles_per_translation"] =
      static_cast<double>(sc_core::sc_delta_count() - deltas_before) /
      static_cast<double>(translations);
  state.counters["walks_per_translation"] =
      static_cast<double>(unit.stats().mtt_walks - walks_before) / static_cast<double>(translations);
}

// Every page cached: one translation per 4 ns cycle.
void BM_TranslationHits(benchmark::State& state) { run_bench(state, 4096); }
BENCHMARK(BM_TranslationHits)->Iterations(200)->Unit(benchmark::kMicrosecond);

// 1024 pages in turn through 64 entries: every access walks (100 ns), four at a time.
void BM_TranslationMisses(benchmark::State& state) { run_bench(state, 64); }
BENCHMARK(BM_TranslationMisses)->Iterations(200)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace rnicsim
