// Co-simulation speed (issue 11): how fast the verilated RTL twins run, and
// what swapping one into the NIC costs.
// - BM_IcrcEngine/<impl>/<bytes per cycle>: one 4 KB RoCEv2 frame after
//   another through the ICRC engine the ICRC blocks use, the model's or the
//   verilated rtl/icrc (model/rtl_bridge); reports frames and, for the RTL,
//   clock cycles per wall second.
// - BM_WriteBwIcrc/<impl>: 4 KB write_bw as write_bw_bench runs it, with the
//   ICRC blocks' timing set to the RTL's (latency 0) on both sides, so the two
//   runs simulate exactly the same thing; the slowdown is rtl's time over
//   model's.
// - BM_WriteBwSplit/<impl>: the same run with the model's or the verilated
//   rtl/dma_splitter in the request splitter (which takes no simulated time
//   with either, so no timing key changes).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "common/time_units.hpp"
#include "config/config.hpp"
#include "config/run_config.hpp"
#include "experiments/experiments.hpp"
#include "experiments/perf/perf_experiment.hpp"
#include "experiments/perf/perf_options.hpp"
#include "packet/frame.hpp"
#include "packet/icrc_engine.hpp"
#include "rtl_bridge/icrc_rtl.hpp"

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

void BM_IcrcEngine(benchmark::State& state) {
  const std::uint64_t width = static_cast<std::uint64_t>(state.range(1));
  const std::unique_ptr<packet::IcrcEngine> engine =
      rtl_bridge::make_icrc_engine(impl_of(state.range(0)), width);
  const std::vector<std::uint8_t> frame = write_only_frame(4096);
  std::uint64_t frames = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(engine->examine(frame.data(), frame.size()));
    ++frames;
  }
  state.counters["frames_per_second"] =
      benchmark::Counter(static_cast<double>(frames), benchmark::Counter::kIsRate);
  if (impl_of(state.range(0)) == BlockImpl::kRtl) {
    // The beats, then the cycle the result is taken in.
    const double cycles_per_frame = static_cast<double>((frame.size() + width - 1) / width + 1);
    state.counters["rtl_cycles_per_second"] = benchmark::Counter(
        cycles_per_frame * static_cast<double>(frames), benchmark::Counter::kIsRate);
  }
}
BENCHMARK(BM_IcrcEngine)
    ->ArgNames({"rtl", "bytes_per_cycle"})
    ->Args({0, 64})
    ->Args({1, 8})
    ->Args({1, 64})
    ->Unit(benchmark::kMicrosecond);

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

void BM_WriteBwIcrc(benchmark::State& state) {
  run_write_bw(state, {"icrc.latency_cycles=0", "icrc.impl=" + impl_name(state.range(0))});
}

void BM_WriteBwSplit(benchmark::State& state) {
  run_write_bw(state, {"request_split.impl=" + impl_name(state.range(0))});
}

// One elaboration per process: scripts/bench runs each with --benchmark_filter.
BENCHMARK(BM_WriteBwIcrc)
    ->ArgNames({"rtl"})
    ->Arg(0)
    ->Arg(1)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_WriteBwSplit)
    ->ArgNames({"rtl"})
    ->Arg(0)
    ->Arg(1)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace rnicsim
