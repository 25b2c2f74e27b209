#include "experiments/experiments.hpp"

#include <algorithm>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "dma/dma_config.hpp"
#include "experiments/pipeline/pipeline_config.hpp"
#include "experiments/pipeline/pipeline_experiment.hpp"
#include "experiments/pipeline/pipeline_outputs.hpp"
#include "experiments/plot.hpp"
#include "host_cpu/host_cpu_config.hpp"
#include "host_memory/host_memory_config.hpp"
#include "link/link_config.hpp"

namespace rnicsim {
namespace {

config::Schema build_schema() {
  config::Schema schema;
  schema.add(config::string_key("experiment", "pipeline", "which experiment to run")
                 .one_of({"pipeline"}));
  schema.add(config::integer_key("seed", 1, "", "seed of every random choice in the run")
                 .at_least(0)
                 .at_most(4294967295.0));
  schema.add(config::boolean_key("output.trace", true,
                                 "write trace.json (Chrome/Perfetto trace events)"));
  schema.add(config::boolean_key("output.plot", true,
                                 "draw the experiment's plot (needs python3-matplotlib)"));
  declare_pipeline_keys(schema);
  declare_host_memory_keys(schema);
  declare_host_cpu_keys(schema);
  declare_dma_keys(schema);
  declare_link_keys(schema);
  return schema;
}

void report_pipeline(const PipelineResult& result, std::ostream& out) {
  std::vector<std::vector<std::string>> rows{
      {"path", "stages", "first latency", "steady", "bottleneck"}};
  for (const PathResult& path : result.paths) {
    std::string stages;
    for (const StageSummary& stage : path.stages) {
      stages += (stages.empty() ? "" : " > ") + stage.name;
    }
    std::ostringstream latency;
    latency << path.first_latency_ns << " ns";
    std::ostringstream bandwidth;
    bandwidth << path.steady_gbps << " Gbit/s";
    rows.push_back({path.name, stages, latency.str(), bandwidth.str(), path.bottleneck});
  }
  std::vector<std::size_t> widths(rows.front().size(), 0);
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  for (const auto& row : rows) {
    for (std::size_t c = 0; c + 1 < row.size(); ++c) {
      out << std::left << std::setw(static_cast<int>(widths[c] + 2)) << row[c];
    }
    out << row.back();
    out << "\n";
  }
  for (const PathResult& path : result.paths) {
    if (path.data_mismatches > 0) {
      out << path.name << ": " << path.data_mismatches << " Data arrived with wrong bytes\n";
    }
  }
}

}  // namespace

const config::Schema& rnicsim_schema() {
  static const config::Schema schema = build_schema();
  return schema;
}

void run_experiment(const RunRequest& request, std::ostream& report) {
  const std::string experiment = config::at_path(request.effective, "experiment").get<std::string>();
  if (experiment != "pipeline") throw std::logic_error("no runner for experiment " + experiment);

  const PipelineConfig pipeline = pipeline_config(request.effective, request.source);
  const PipelineResult result = run_pipeline(pipeline);
  write_pipeline_outputs(result, request.folder,
                         config::at_path(request.effective, "output.trace").get<bool>());
  if (config::at_path(request.effective, "output.plot").get<bool>()) {
    draw_plot("plot_pipeline.py", request.folder, report);
  }
  report_pipeline(result, report);
}

}  // namespace rnicsim
