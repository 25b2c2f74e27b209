#include "program/experiments/experiments.hpp"

#include <algorithm>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "common/run_progress.hpp"
#include "common/simulation.hpp"
#include "program/experiments/collectives/collectives_experiment.hpp"
#include "program/experiments/dma/dma_experiment.hpp"
#include "program/experiments/dma/dma_outputs.hpp"
#include "program/experiments/fabric/fabric_experiment.hpp"
#include "program/experiments/output_files.hpp"
#include "program/experiments/perf/perf_experiment.hpp"
#include "program/experiments/pipeline/pipeline_config.hpp"
#include "program/experiments/pipeline/pipeline_experiment.hpp"
#include "program/experiments/pipeline/pipeline_outputs.hpp"
#include "program/experiments/plot.hpp"
#include "program/experiments/translation/translation_experiment.hpp"
#include "program/experiments/translation/translation_outputs.hpp"
#include "system/testbed_keys.hpp"

namespace rnicsim {
namespace {

config::Schema build_schema() {
  config::Schema schema;
  schema.add(config::string_key("experiment", "pipeline", "which experiment to run")
                 .one_of({"pipeline", "dma", "translation", "perf", "fabric", "collectives"}));
  schema.add(config::integer_key("seed", 1, "", "seed of every random choice in the run")
                 .at_least(0)
                 .at_most(4294967295.0));
  schema.add(config::boolean_key("output.trace", true,
                                 "write trace.json (Chrome/Perfetto trace events)"));
  schema.add(config::boolean_key("output.plot", true,
                                 "draw the experiment's plot (needs python3-matplotlib)"));
  schema.add(config::integer_key("output.timeline_data", 10000, "Data",
                                 "pipeline: how many Data per path (the first ones) get their "
                                 "per-stage timeline in arrivals.csv and trace.json; the "
                                 "summary's figures always cover every Data")
                 .at_least(0)
                 .at_most(10000000));
  declare_testbed_keys(schema);
  declare_pipeline_keys(schema);
  declare_dma_test_keys(schema);
  declare_translation_test_keys(schema);
  declare_fabric_keys(schema);
  declare_collectives_experiment_keys(schema);
  return schema;
}

// Columns padded to their widest cell; the last column is not padded.
void print_table(const std::vector<std::vector<std::string>>& rows, std::ostream& out) {
  std::vector<std::size_t> widths(rows.front().size(), 0);
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  for (const auto& row : rows) {
    for (std::size_t c = 0; c + 1 < row.size(); ++c) {
      out << std::left << std::setw(static_cast<int>(widths[c] + 2)) << row[c];
    }
    out << row.back() << "\n";
  }
}

std::string with_unit(double value, const char* unit) {
  std::ostringstream text;
  text << value << " " << unit;
  return text.str();
}

void report_pipeline(const PipelineResult& result, std::ostream& out) {
  std::vector<std::vector<std::string>> rows{
      {"path", "stages", "first latency", "steady", "bottleneck"}};
  for (const PathResult& path : result.paths) {
    std::string stages;
    for (const StageSummary& stage : path.stages) {
      stages += (stages.empty() ? "" : " > ") + stage.name;
    }
    rows.push_back({path.name, stages, with_unit(path.first_latency_ns, "ns"),
                    with_unit(path.steady_gbps, "Gbit/s"), path.bottleneck});
  }
  print_table(rows, out);
  for (const PathResult& path : result.paths) {
    if (path.arrivals.data_mismatches > 0) {
      out << path.name << ": " << path.arrivals.data_mismatches << " Data arrived with wrong bytes\n";
    }
  }
}

void report_dma(const DmaTestResult& result, std::ostream& out) {
  out << "PCIe link: " << result.link_gbps << " Gbit/s per direction\n";
  std::vector<std::vector<std::string>> rows{
      {"size", "read latency (median)", "read bandwidth", "write bandwidth"}};
  for (const DmaSizeResult& r : result.sizes) {
    rows.push_back({std::to_string(r.size_bytes) + " B", with_unit(r.read_latency_ns, "ns"),
                    with_unit(r.read_bw_gbps, "Gbit/s"), with_unit(r.write_bw_gbps, "Gbit/s")});
  }
  print_table(rows, out);
}

void report_translation(const TranslationTestResult& result, std::ostream& out) {
  std::vector<std::vector<std::string>> rows{
      {"cache entries", "working set", "hit rate", "mean", "p99", "throughput"}};
  for (const TranslationPoint& p : result.points) {
    rows.push_back({std::to_string(p.cache_entries), std::to_string(p.working_set_pages) + " pages",
                    with_unit(100 * p.hit_rate, "%"), with_unit(p.mean_translate_ns, "ns"),
                    with_unit(p.p99_translate_ns, "ns"), with_unit(p.translations_per_us, "/us")});
  }
  print_table(rows, out);
}

}  // namespace

const config::Schema& rnicsim_schema() {
  static const config::Schema schema = build_schema();
  return schema;
}

void run_experiment(const RunRequest& request, std::ostream& report) {
  config::RunConfig run(request.config);
  const std::string experiment = run.at("experiment").get<std::string>();
  run.at("seed");  // read through each block's stream seed
  const config::Section output = run.section("output");
  const bool plot = output.boolean("plot");
  // Once the experiment has read its configuration: a key nothing read is an
  // error before any simulation, and the values read are the effective configuration.
  const auto configured = [&] {
    run.require_all_read(experiment);
    write_text(request.folder / "effective_config.json", run.used().dump(2) + "\n");
    report << request.banner;
  };
  RunProgress progress(request.terminal);
  if (experiment == "pipeline") {
    const PipelineConfig pipeline = pipeline_config(run);
    const std::uint64_t timeline_data = output.integer("timeline_data");
    const bool trace = output.boolean("trace");
    configured();
    PipelineOutputs outputs(request.folder, timeline_data, trace);
    const PipelineResult result = run_pipeline(pipeline, progress, &outputs);
    outputs.finish(result);
    if (plot) draw_plot("plot_pipeline.py", request.folder, report);
    report_pipeline(result, report);
  } else if (experiment == "dma") {
    const DmaTestConfig dma = dma_test_config(run);
    configured();
    const DmaTestResult result = run_dma_test(dma, progress);
    write_dma_outputs(dma, result, request.folder);
    if (plot) draw_plot("plot_dma.py", request.folder, report);
    report_dma(result, report);
  } else if (experiment == "translation") {
    const TranslationTestConfig translation = translation_test_config(run);
    configured();
    const TranslationTestResult result = run_translation_test(translation, progress);
    write_translation_outputs(translation, result, request.folder);
    if (plot) draw_plot("plot_translation.py", request.folder, report);
    report_translation(result, report);
  } else if (experiment == "perf") {
    if (request.perf == nullptr) {
      throw config::ConfigError(request.config.source_of("experiment"), "experiment",
                                "perf runs through `rnicsim perf TEST CONFIG`, which names the "
                                "test (write_lat, write_bw, ...)");
    }
    const PerfResult result = run_perf(run, *request.perf, configured, report, request.terminal);
    write_perf_outputs(*request.perf, run.used(), result, request.folder);
    if (plot && !result.breakdowns.empty()) draw_plot("plot_breakdown.py", request.folder, report);
    if (result.failure) throw RunFailedWithResults(*result.failure);
  } else if (experiment == "fabric") {
    run_fabric(run, configured, request.folder, report, request.terminal);
    if (plot) draw_plot("plot_fabric.py", request.folder, report);
  } else if (experiment == "collectives") {
    run_collectives(run, configured, request.folder, report, request.terminal);
  } else {
    throw std::logic_error("no runner for experiment " + experiment);
  }
}

}  // namespace rnicsim
