// Simulator speed on the seed pipeline: Data moved per wall second through
// both paths (real bytes through host memory), and delta cycles and process
// activations (activity.hpp) per Data as measures of kernel work. SystemC allows one elaboration per process, so the
// benchmark elaborates once and each iteration simulates one more microsecond.
#include <benchmark/benchmark.h>

#include <string>
#include <systemc>

#include "common/activity.hpp"
#include "common/run_progress.hpp"
#include "common/time_units.hpp"
#include "program/experiments/experiments.hpp"
#include "program/experiments/pipeline/data_path.hpp"
#include "program/experiments/pipeline/pipeline_config.hpp"

namespace rnicsim {
namespace {

constexpr std::uint64_t kDataPerIteration = 1000;  // 1 us at one Data per ns
constexpr std::uint64_t kIterations = 400;

void BM_SeedPipelineBothPaths(benchmark::State& state) {
  const std::string seed = std::string(RNICSIM_SOURCE_DIR) + "/configs/seed_pipeline.json";
  config::RunConfig doc(config::load_config(
      seed, {"workload.count=" + std::to_string(kDataPerIteration * (kIterations + 1))},
      rnicsim_schema()));
  const PipelineConfig config = pipeline_config(doc);
  RunProgress quiet;
  DataPath ethernet("ethernet", config, true, tcp_ipv4(), quiet);
  DataPath rdma("rdma", config, false, roce_v2_write_only_ipv4(), quiet);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);

  const sc_core::sc_time step = config.workload.interval * static_cast<double>(kDataPerIteration);
  const std::uint64_t deltas_before = sc_core::sc_delta_count();
  reset_activity();
  for (auto _ : state) sc_core::sc_start(step);
  const std::uint64_t data = ethernet.totals().arrived + rdma.totals().arrived;
  state.SetItemsProcessed(static_cast<std::int64_t>(data));
  state.counters["delta_cycles_per_data"] =
      static_cast<double>(sc_core::sc_delta_count() - deltas_before) / static_cast<double>(data);
  state.counters["activations_per_data"] =
      static_cast<double>(activity().total()) / static_cast<double>(data);
}
BENCHMARK(BM_SeedPipelineBothPaths)->Iterations(kIterations)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace rnicsim
