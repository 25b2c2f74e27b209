#include "program/experiments/pipeline/pipeline_experiment.hpp"

#include <algorithm>
#include <stdexcept>

#include "common/simulation.hpp"
#include "common/time_units.hpp"

namespace rnicsim {
namespace {

// Two durations closer than this are the same: results are whole picoseconds.
constexpr double kSameNs = 0.0005;

PathLayout layout_of(const DataPath& path) {
  return PathLayout{path.basename(), path.stage_names()};
}

PathResult collect(const DataPath& path, const PipelineWorkload& workload,
                   const std::string& encapsulation) {
  PathResult result;
  result.name = path.basename();
  result.encapsulation = encapsulation;
  result.memory = path.memory().stats();
  const std::vector<std::string> names = path.stage_names();
  const std::vector<const PipelineStage<Transfer>*> stages = path.stages();
  for (std::size_t i = 0; i < stages.size(); ++i) {
    StageSummary summary{names[i], stages[i]->stats(), 0, 0};
    if (summary.stats.items > 0) {
      const auto items = static_cast<double>(summary.stats.items);
      summary.mean_service_ns = to_ns(summary.stats.busy) / items;
      summary.mean_occupied_ns = to_ns(summary.stats.busy + summary.stats.blocked) / items;
    }
    result.stages.push_back(summary);
  }
  if (path.testbed() != nullptr) {
    const Node& a = path.subject();
    TestbedCounts counts;
    counts.pcie_read_requests = a.host.pcie.stats().read_requests;
    counts.pcie_completion_bytes = a.host.pcie.downstream_stats().tlp_bytes;
    counts.pcie_dllps = a.host.pcie.upstream_stats().dllps + a.host.pcie.downstream_stats().dllps;
    counts.dma_bytes_read = a.nic.dma_engine.stats().bytes_read;
    counts.wire_frames = path.wire().stats().items;
    result.testbed = counts;
    result.statistics = path.testbed()->statistics();
  }
  result.arrivals = path.totals();
  if (result.arrivals.arrived != workload.count) {
    throw std::logic_error(result.name + ": " + std::to_string(result.arrivals.arrived) + " of " +
                           std::to_string(workload.count) + " Data arrived");
  }
  result.first_latency_ns = result.arrivals.first_latency_ns;
  result.mean_latency_ns =
      result.arrivals.latency_sum_ns / static_cast<double>(result.arrivals.arrived);
  result.steady_gbps = steady_gbps(result.arrivals, workload.data_bits);
  result.bottleneck = find_bottleneck(result.stages, to_ns(workload.interval));
  return result;
}

}  // namespace

double steady_gbps(const ArrivalTotals& arrivals, std::uint64_t data_bits) {
  if (arrivals.arrived < 2) throw std::invalid_argument("steady bandwidth needs two arrivals");
  const double span_ns = arrivals.last_arrival_ns - arrivals.first_arrival_ns;
  if (span_ns <= 0) throw std::invalid_argument("all Data arrived at the same time");
  return static_cast<double>(arrivals.arrived - 1) * static_cast<double>(data_bits) / span_ns;
}

std::string find_bottleneck(const std::vector<StageSummary>& stages, double interval_ns) {
  std::string bottleneck = "workload";
  double slowest_ns = interval_ns;
  for (const StageSummary& stage : stages) {
    if (stage.mean_occupied_ns > slowest_ns - kSameNs) {
      bottleneck = stage.name;
      slowest_ns = std::max(slowest_ns, stage.mean_occupied_ns);
    }
  }
  return bottleneck;
}

PipelineResult run_pipeline(const PipelineConfig& config, RunProgress& progress,
                            PipelineObserver* observer) {
  require_picosecond_resolution();
  DataPath ethernet("ethernet", config, true, tcp_ipv4(), progress);
  DataPath rdma("rdma", config, false, roce_v2_write_only_ipv4(), progress);
  if (observer) {
    observer->begin({layout_of(ethernet), layout_of(rdma)});
    ethernet.set_observer([observer](const DataTimeline& data) { observer->arrived(0, data); });
    rdma.set_observer([observer](const DataTimeline& data) { observer->arrived(1, data); });
  }
  progress.start("Data", 2 * config.workload.count);
  simulate_workload(2);  // both paths
  progress.finish();

  PipelineResult result;
  result.data_bits = config.workload.data_bits;
  result.interval_ns = to_ns(config.workload.interval);
  result.count = config.workload.count;
  result.seed = config.workload.seed;
  result.framing = framing_name(config.framing);
  result.paths.push_back(collect(ethernet, config.workload, tcp_ipv4().name));
  result.paths.push_back(collect(rdma, config.workload, roce_v2_write_only_ipv4().name));
  return result;
}

}  // namespace rnicsim
