// The fabric experiment's speed: 4 KB WRITEs (one data packet each at PMTU
// 4096) through the real NICs and switches, exactly as
//   rnicsim run configs/fabric_incast.json --set traffic.bytes=4096 --set traffic.messages=25000
// (an 8-to-1 incast on a star with PFC, 200,000 data packets) and a
// permutation of 64 hosts on a star (3,125 messages each, 200,000 data
// packets) run them. Reports data packets per wall second (ACKs and pauses
// not counted), activations per packet, and the simulation's wall time alone
// (set-up and output files excluded), from the run's own speed.json.
//
// One elaboration per process (SystemC), so each benchmark is one iteration
// of one whole run, in a process of its own: scripts/bench picks one with
// --benchmark_filter. The two-node write_bw it is compared with is
// write_bw_bench's BM_WriteBw/4096, in the same scripts/bench run.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/time_units.hpp"
#include "config/config.hpp"
#include "config/run_config.hpp"
#include "program/experiments/experiments.hpp"
#include "program/experiments/fabric/fabric_experiment.hpp"

namespace rnicsim {
namespace {

void run_fabric_bench(benchmark::State& state, const std::vector<std::string>& settings) {
  const std::string preset = std::string(RNICSIM_SOURCE_DIR) + "/configs/fabric_incast.json";
  std::vector<std::string> overrides = {"traffic.bytes=4096", "output.plot=false"};
  overrides.insert(overrides.end(), settings.begin(), settings.end());
  config::RunConfig run(config::load_config(preset, overrides, rnicsim_schema()));
  require_picosecond_resolution();
  const std::filesystem::path folder =
      std::filesystem::temp_directory_path() / ("rnicsim_fabric_bench_" + std::to_string(getpid()));
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  std::ostringstream report;
  nlohmann::json speed;
  for (auto _ : state) {
    run_fabric(
        run, [] {}, folder, report, nullptr);
    std::ifstream in(folder / "speed.json");
    speed = nlohmann::json::parse(in);
    state.SetIterationTime(speed["wall_seconds"].get<double>());
  }
  std::filesystem::remove_all(folder);
  const double wall = speed["wall_seconds"].get<double>();
  const double packets = speed["request_packets"].get<double>();
  state.counters["packets_per_wall_second"] = packets / wall;
  state.counters["activations_per_packet"] = speed["activations_per_request_packet"].get<double>();
}

void BM_FabricIncast8To1(benchmark::State& state) {
  run_fabric_bench(state, {"traffic.messages=25000"});
}

void BM_FabricPermutation64(benchmark::State& state) {
  run_fabric_bench(state,
                   {"topology.hosts=64", "traffic.pattern=permutation", "traffic.messages=3125"});
}

BENCHMARK(BM_FabricIncast8To1)->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FabricPermutation64)->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace rnicsim
