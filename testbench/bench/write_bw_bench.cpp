// The composed simulator's speed: ib_write_bw between the two nodes of the
// default preset, exactly as
//   rnicsim perf write_bw -s SIZE -n MESSAGES -m 4096 --set nic.ethernet_mtu_bytes=4200
// runs it (posts, doorbells, WQE fetch, payload DMA, builder, ICRC, wire,
// parser, responder, DMA write, ACK, completer, CQE, poll; real bytes and
// ICRC at both ends). At PMTU 4096 each message is one request packet, so
// messages per wall second are data packets per wall second (ACKs not
// counted). Reports those, simulated Gbit/s per wall second (payload bytes)
// and process activations per packet.
//
// The perf experiment elaborates its own testbed, and SystemC allows one
// elaboration per process, so each benchmark is one iteration of one whole
// run, timed by the run itself (the simulation alone, set-up excluded), and
// runs in a process of its own: scripts/bench picks one with
// --benchmark_filter.
#include <benchmark/benchmark.h>

#include <sstream>
#include <string>
#include <vector>

#include "common/time_units.hpp"
#include "config/config.hpp"
#include "config/run_config.hpp"
#include "program/experiments/experiments.hpp"
#include "program/experiments/perf/perf_experiment.hpp"
#include "program/experiments/perf/perf_options.hpp"

namespace rnicsim {
namespace {

void BM_WriteBw(benchmark::State& state) {
  const std::string bytes = std::to_string(state.range(0));
  const std::string messages = std::to_string(state.range(1));
  const perf::PerfOptions options =
      perf::parse_perf_options({"write_bw", "-s", bytes, "-n", messages, "-m", "4096"});
  const std::string preset = std::string(RNICSIM_SOURCE_DIR) + "/configs/cx5_100g.json";
  config::RunConfig run(config::load_config(
      preset, {"experiment=perf", "nic.ethernet_mtu_bytes=4200"}, rnicsim_schema()));
  require_picosecond_resolution();
  std::ostringstream report;  // perftest's table: not this benchmark's output
  PerfResult result;
  for (auto _ : state) {
    result = run_perf(run, options, [] {}, report, nullptr);
    state.SetIterationTime(result.speed["wall_seconds"].get<double>());
  }
  const double wall = result.speed["wall_seconds"].get<double>();
  const double packets = result.speed["request_packets"].get<double>();
  state.counters["packets_per_wall_second"] = packets / wall;
  state.counters["simulated_gbits_per_wall_second"] =
      8.0 * static_cast<double>(state.range(0)) * packets / 1e9 / wall;
  state.counters["activations_per_packet"] =
      result.speed["activations_per_request_packet"].get<double>();
  state.counters["simulated_bw_average_gbps"] =
      result.bandwidth.empty() ? 0.0 : result.bandwidth.front().bw_avg_gbps;
}
// -n as large as keeps each run to a few wall seconds: long enough that
// start-up and the first message's latency are noise.
BENCHMARK(BM_WriteBw)
    ->Args({4096, 200000})
    ->Args({64, 500000})
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace rnicsim
