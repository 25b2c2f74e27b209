// Co-simulation speed: how fast the verilated RTL twins run, and
// what swapping one into the NIC costs.
// - BM_IcrcEngine/<impl>/<bytes per cycle>: one 4 KB RoCEv2 frame after
//   another through the ICRC engine the ICRC blocks use, the model's or the
//   verilated rtl/icrc (model/nic/rtl_bridge); reports frames and, for the RTL,
//   clock cycles per wall second.
// - BM_ParserEngine/<impl>/<bytes per cycle>: the same through the parser
//   engine the packet parser uses, the model's or rtl/packet_parser.
// - BM_WriteBwSwap/<icrc rtl>/<parser rtl>: 4 KB write_bw as write_bw_bench
//   runs it, with the ICRC blocks' and the parser's timing set to the RTL's
//   (latency 0) in every run, so all runs simulate exactly the same thing;
//   a swap's slowdown is its time over the all-model run's.
// - BM_WriteBwSplit/<impl>: the same run with the model's or the verilated
//   rtl/request_splitter in the request splitter (which takes no simulated time
//   with either, so no timing key changes).
// - BM_SplitEngine/<impl>: random DMA requests through the request
//   splitter's engine, the model's or rtl/request_splitter; reports requests and,
//   for the RTL, clock cycles per wall second.
// - BM_PageCache/<impl>/<entries>: random lookups (a fill after each miss,
//   a peek before each lookup, now and then an invalidate) through the MTT
//   cache the translation unit uses, the model's or the verilated
//   rtl/translation_cache, at 64 x 4 and the NIC's 4096 x 8; reports operations and,
//   for the RTL, clock cycles per wall second.
// - BM_WriteBwCaches/<impl>: the 4 KB write_bw run with the model's or the
//   verilated translation caches (MPT and MTT).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/time_units.hpp"
#include "config/config.hpp"
#include "config/run_config.hpp"
#include "formats/frame.hpp"
#include "nic/dma/request_splitter_rtl.hpp"
#include "nic/dma/split_engine.hpp"
#include "nic/packet/icrc_engine.hpp"
#include "nic/packet/icrc_rtl.hpp"
#include "nic/packet/packet_parser_rtl.hpp"
#include "nic/packet/parser_engine.hpp"
#include "nic/translation/translation_cache_rtl.hpp"
#include "program/experiments/experiments.hpp"
#include "program/experiments/perf/perf_experiment.hpp"
#include "program/experiments/perf/perf_options.hpp"

namespace rnicsim {
namespace {

BlockImpl impl_of(std::int64_t arg) { return arg == 0 ? BlockImpl::kModel : BlockImpl::kRtl; }

std::vector<std::uint8_t> write_only_frame(std::size_t payload_bytes) {
  packet::RocePacket p;
  p.bth.opcode = 0x0A;  // RC RDMA WRITE ONLY
  p.reth = packet::Reth{0x1000, 0x1234, static_cast<std::uint32_t>(payload_bytes)};
  const std::vector<std::uint8_t> payload(payload_bytes, 0xA5);
  return packet::build_frame(p, payload.data(), payload.size());
}

// One 4 KB frame after another through `run_one(frame, length)`; counts
// frames and, for an RTL engine, its clock cycles per wall second.
template <typename RunOne>
void frames_through(benchmark::State& state, RunOne&& run_one) {
  const std::uint64_t width = static_cast<std::uint64_t>(state.range(1));
  const std::vector<std::uint8_t> frame = write_only_frame(4096);
  std::uint64_t frames = 0;
  for (auto _ : state) {
    run_one(frame.data(), frame.size());
    ++frames;
  }
  state.counters["frames_per_second"] =
      benchmark::Counter(static_cast<double>(frames), benchmark::Counter::kIsRate);
  if (impl_of(state.range(0)) == BlockImpl::kRtl) {
    // The beats, then the cycle the answer is taken in.
    const double cycles_per_frame = static_cast<double>((frame.size() + width - 1) / width + 1);
    state.counters["rtl_cycles_per_second"] = benchmark::Counter(
        cycles_per_frame * static_cast<double>(frames), benchmark::Counter::kIsRate);
  }
}

void BM_IcrcEngine(benchmark::State& state) {
  const std::unique_ptr<packet::IcrcEngine> engine = rtl_bridge::make_icrc_engine(
      impl_of(state.range(0)), static_cast<std::uint64_t>(state.range(1)));
  frames_through(state, [&engine](const std::uint8_t* frame, std::size_t length) {
    benchmark::DoNotOptimize(engine->examine(frame, length));
  });
}
BENCHMARK(BM_IcrcEngine)
    ->ArgNames({"rtl", "bytes_per_cycle"})
    ->Args({0, 64})
    ->Args({1, 8})
    ->Args({1, 64})
    ->Unit(benchmark::kMicrosecond);

void BM_ParserEngine(benchmark::State& state) {
  const std::unique_ptr<packet::ParserEngine> engine = rtl_bridge::make_parser_engine(
      impl_of(state.range(0)), static_cast<std::uint64_t>(state.range(1)));
  frames_through(state, [&engine](const std::uint8_t* frame, std::size_t length) {
    benchmark::DoNotOptimize(engine->parse(frame, length));
  });
}
BENCHMARK(BM_ParserEngine)
    ->ArgNames({"rtl", "bytes_per_cycle"})
    ->Args({0, 64})
    ->Args({1, 8})
    ->Args({1, 64})
    ->Unit(benchmark::kMicrosecond);

void BM_PageCache(benchmark::State& state) {
  const std::uint32_t entries = static_cast<std::uint32_t>(state.range(1));
  const CacheGeometry geometry{entries, entries == 4096 ? 8U : 4U, Replacement::kLru};
  const std::unique_ptr<PageCache> cache =
      rtl_bridge::make_mtt_cache_maker(impl_of(state.range(0)))(geometry, 1);
  std::mt19937_64 rng(7);
  std::uint64_t operations = 0;
  for (auto _ : state) {
    const std::uint64_t index = rng() % (2 * entries);  // twice the lines: about half hit
    benchmark::DoNotOptimize(cache->peek(index));
    if (!cache->lookup(index)) {
      cache->insert(index, index << 12);
      ++operations;
    }
    if (rng() % 16 == 0) {
      cache->invalidate(rng() % (2 * entries));
      ++operations;
    }
    operations += 2;
  }
  state.counters["operations_per_second"] =
      benchmark::Counter(static_cast<double>(operations), benchmark::Counter::kIsRate);
  state.counters["hit_rate"] = static_cast<double>(cache->hits()) /
                               static_cast<double>(cache->hits() + cache->misses());
  if (impl_of(state.range(0)) == BlockImpl::kRtl) {
    state.counters["rtl_cycles_per_second"] = benchmark::Counter(
        static_cast<double>(cache->rtl_cycles()), benchmark::Counter::kIsRate);
  }
}
BENCHMARK(BM_PageCache)
    ->ArgNames({"rtl", "entries"})
    ->Args({0, 4096})
    ->Args({1, 64})
    ->Args({1, 4096})
    ->Unit(benchmark::kNanosecond);

// Random DMA requests (reads and writes, 1 byte to 16 KiB at any address)
// through the request splitter's engine, the model's or the verilated
// rtl/request_splitter, at the NIC's MPS 256 and MRRS 512; counts requests and,
// for the RTL, its clock cycles per wall second.
void BM_SplitEngine(benchmark::State& state) {
  const std::unique_ptr<SplitEngine> engine =
      rtl_bridge::make_split_engine(impl_of(state.range(0)), TlpSizes{256, 512});
  std::mt19937_64 rng(11);
  std::vector<TlpCut> cuts;
  std::uint64_t requests = 0;
  std::uint64_t cycles = 0;
  for (auto _ : state) {
    const SplitRequest request{rng() % 2 == 0, rng() % (std::uint64_t{1} << 40),
                               static_cast<std::uint32_t>(1 + rng() % 16384), 65535};
    cuts.clear();
    cycles += engine->cut(request, cuts).cycles;
    benchmark::DoNotOptimize(cuts.data());
    ++requests;
  }
  state.counters["requests_per_second"] =
      benchmark::Counter(static_cast<double>(requests), benchmark::Counter::kIsRate);
  if (impl_of(state.range(0)) == BlockImpl::kRtl) {
    state.counters["rtl_cycles_per_second"] =
        benchmark::Counter(static_cast<double>(cycles), benchmark::Counter::kIsRate);
  }
}
BENCHMARK(BM_SplitEngine)->ArgNames({"rtl"})->Arg(0)->Arg(1)->Unit(benchmark::kNanosecond);

// 4 KB write_bw, 20,000 messages, on the preset with `sets` on top.
void run_write_bw(benchmark::State& state, std::vector<std::string> sets) {
  const perf::PerfOptions options =
      perf::parse_perf_options({"write_bw", "-s", "4096", "-n", "20000", "-m", "4096"});
  const std::string preset = std::string(RNICSIM_SOURCE_DIR) + "/configs/cx5_100g.json";
  sets.insert(sets.begin(), {"experiment=perf", "nic.ethernet_mtu_bytes=4200"});
  config::RunConfig run(config::load_config(preset, sets, rnicsim_schema()));
  require_picosecond_resolution();
  std::ostringstream report;
  PerfResult result;
  for (auto _ : state) {
    result = run_perf(run, options, [] {}, report, nullptr);
    state.SetIterationTime(result.speed["wall_seconds"].get<double>());
  }
  state.counters["packets_per_wall_second"] = result.speed["request_packets"].get<double>() /
                                              result.speed["wall_seconds"].get<double>();
}

std::string impl_name(std::int64_t arg) {
  return impl_of(arg) == BlockImpl::kRtl ? "rtl" : "model";
}

void BM_WriteBwSwap(benchmark::State& state) {
  run_write_bw(state, {"icrc.latency_cycles=0", "packet.parser_latency_cycles=0",
                       "icrc.impl=" + impl_name(state.range(0)),
                       "packet.parser_impl=" + impl_name(state.range(1))});
}

void BM_WriteBwSplit(benchmark::State& state) {
  run_write_bw(state, {"request_splitter.impl=" + impl_name(state.range(0))});
}

void BM_WriteBwCaches(benchmark::State& state) {
  run_write_bw(state, {"translation.mpt_cache_impl=" + impl_name(state.range(0)),
                       "translation.mtt_cache_impl=" + impl_name(state.range(0))});
}

// One whole run, timed by the run itself; one elaboration per process:
// scripts/bench runs each with --benchmark_filter.
void one_timed_run(benchmark::internal::Benchmark* b) {
  b->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);
}
BENCHMARK(BM_WriteBwSwap)
    ->ArgNames({"icrc_rtl", "parser_rtl"})
    ->Args({0, 0})
    ->Args({1, 0})
    ->Args({0, 1})
    ->Args({1, 1})
    ->Apply(one_timed_run);
BENCHMARK(BM_WriteBwSplit)->ArgNames({"rtl"})->Arg(0)->Arg(1)->Apply(one_timed_run);
BENCHMARK(BM_WriteBwCaches)->ArgNames({"rtl"})->Arg(0)->Arg(1)->Apply(one_timed_run);

}  // namespace
}  // namespace rnicsim
