#include "program/experiments/pipeline/pipeline_outputs.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>

#include "common/time_units.hpp"
#include "program/experiments/output_files.hpp"

namespace rnicsim {
namespace {

using Json = nlohmann::json;

constexpr const char* kArrivalsFile = "arrivals.csv";
constexpr const char* kTraceFile = "trace.json";

void require_written(std::ostream& out, const std::filesystem::path& file) {
  if (!out.flush()) throw OutputError(file, std::strerror(errno));
}

std::ofstream open_for_writing(const std::filesystem::path& file) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  require_written(out, file);
  return out;
}

Json summary_json(const PipelineResult& result, std::uint64_t timeline_data) {
  Json paths = Json::object();
  for (const PathResult& path : result.paths) {
    Json stages = Json::array();
    for (const StageSummary& stage : path.stages) stages.push_back(stage.name);
    const ArrivalTotals& a = path.arrivals;
    Json entry = {{"stages", stages},
                  {"arrived", a.arrived},
                  {"first_latency_ns", path.first_latency_ns},
                  {"latency_ns",
                   {{"min", a.min_latency_ns},
                    {"mean", path.mean_latency_ns},
                    {"max", a.max_latency_ns}}},
                  {"first_arrival_ns", a.first_arrival_ns},
                  {"last_arrival_ns", a.last_arrival_ns},
                  {"steady_gbps", path.steady_gbps},
                  {"bottleneck", path.bottleneck},
                  {"data_mismatches", a.data_mismatches}};
    if (result.framing == "ethernet") entry["encapsulation"] = path.encapsulation;
    paths[path.name] = entry;
  }
  return {{"schema", "rnicsim.pipeline.summary/2"},
          {"experiment", "pipeline"},
          {"workload",
           {{"data_bits", result.data_bits},
            {"interval_ns", result.interval_ns},
            {"count", result.count},
            {"seed", result.seed}}},
          {"framing", result.framing},
          {"timeline_data", std::min(timeline_data, result.count)},
          {"paths", paths}};
}

Json stats_json(const PipelineResult& result) {
  Json blocks = Json::object();
  for (const PathResult& path : result.paths) {
    for (const StageSummary& stage : path.stages) {
      const StageStats& s = stage.stats;
      blocks[path.name + "." + stage.name] = {
          {"items", s.items},
          {"bits", s.bits},
          {"busy_ns", to_ns(s.busy)},
          {"blocked_ns", to_ns(s.blocked)},
          {"mean_service_ns", stage.mean_service_ns},
          {"mean_occupied_ns", stage.mean_occupied_ns},
          {"first_start_ns", to_ns(s.first_start)},
          {"last_end_ns", to_ns(s.last_end)}};
    }
    const HostMemoryStats& m = path.memory;
    blocks[path.name + ".memory"] = {{"reads", m.reads},
                                     {"writes", m.writes},
                                     {"bytes_read", m.bytes_read},
                                     {"bytes_written", m.bytes_written},
                                     {"error_responses", m.errors}};
    if (path.testbed) {
      const TestbedCounts& t = *path.testbed;
      blocks[path.name + ".testbed"] = {{"pcie_read_requests", t.pcie_read_requests},
                                        {"pcie_completion_bytes", t.pcie_completion_bytes},
                                        {"pcie_dllps", t.pcie_dllps},
                                        {"dma_bytes_read", t.dma_bytes_read},
                                        {"wire_frames", t.wire_frames}};
    }
  }
  Json stats = {{"units",
           {{"items", "count"},
            {"bits", "bits occupying the stage's datapath (the wire counts framing)"},
            {"busy_ns", "ns serving items"},
            {"blocked_ns", "ns finished items waited for room downstream"},
            {"mean_service_ns", "ns of busy time per item"},
            {"mean_occupied_ns", "ns of busy and blocked time per item"},
            {"first_start_ns", "ns, first item's start"},
            {"last_end_ns", "ns, last item visible downstream"},
            {"reads", "count"},
            {"writes", "count"},
            {"bytes_read", "bytes"},
            {"bytes_written", "bytes"},
            {"error_responses", "count"}}},
          {"blocks", blocks}};
  // The testbed composition's counts (TestbedCounts says what each is).
  if (std::any_of(result.paths.begin(), result.paths.end(),
                  [](const PathResult& path) { return path.testbed.has_value(); })) {
    Json& units = stats["units"];
    units["pcie_read_requests"] = "count";
    units["pcie_completion_bytes"] = "bytes";
    units["pcie_dllps"] = "count";
    units["dma_bytes_read"] = "bytes";
    units["wire_frames"] = "count";
  }
  return stats;
}

// Stage columns are the union of every path's stages, in first-seen order,
// each after the stage it follows on the path that has it.
std::vector<std::string> union_of_stages(const std::vector<PathLayout>& paths) {
  std::vector<std::string> columns;
  std::set<std::string> seen;
  for (const PathLayout& path : paths) {
    for (std::size_t i = 0; i < path.stages.size(); ++i) {
      if (!seen.insert(path.stages[i]).second) continue;
      auto after = columns.end();
      if (i > 0) {
        for (auto it = columns.begin(); it != columns.end(); ++it) {
          if (*it == path.stages[i - 1]) after = it + 1;
        }
      }
      columns.insert(after, path.stages[i]);
    }
  }
  return columns;
}

}  // namespace

PipelineOutputs::PipelineOutputs(std::filesystem::path folder, std::uint64_t timeline_data,
                                 bool with_trace)
    : folder_(std::move(folder)), timeline_data_(timeline_data), with_trace_(with_trace) {}

void PipelineOutputs::begin(const std::vector<PathLayout>& paths) {
  stage_columns_ = union_of_stages(paths);
  paths_.clear();
  paths_.reserve(paths.size());
  for (const PathLayout& layout : paths) {
    PathFiles files;
    files.layout = layout;
    for (const std::string& stage : layout.stages) {
      for (std::size_t c = 0; c < stage_columns_.size(); ++c) {
        if (stage_columns_[c] == stage) files.column_of_stage.push_back(static_cast<int>(c));
      }
    }
    files.rows_file = folder_ / (std::string(kArrivalsFile) + "." + layout.name + ".part");
    files.rows = open_for_writing(files.rows_file);
    paths_.push_back(std::move(files));
  }
  if (!with_trace_) return;
  trace_ = open_for_writing(folder_ / kTraceFile);
  trace_ << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[";
  // Chrome trace-event format: one process per path, one thread (track) per stage.
  for (std::size_t p = 0; p < paths.size(); ++p) {
    write_trace_event(Json{{"name", "process_name"}, {"ph", "M"}, {"pid", p + 1},
                           {"args", {{"name", paths[p].name}}}}.dump());
    for (std::size_t s = 0; s < paths[p].stages.size(); ++s) {
      write_trace_event(Json{{"name", "thread_name"}, {"ph", "M"}, {"pid", p + 1},
                             {"tid", s + 1}, {"args", {{"name", paths[p].stages[s]}}}}.dump());
      write_trace_event(Json{{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", p + 1},
                             {"tid", s + 1}, {"args", {{"sort_index", s}}}}.dump());
    }
  }
}

void PipelineOutputs::write_trace_event(const std::string& text) {
  trace_ << (first_trace_event_ ? "\n" : ",\n") << text;
  first_trace_event_ = false;
}

void PipelineOutputs::arrived(std::size_t path, const DataTimeline& t) {
  if (t.index >= timeline_data_) return;
  PathFiles& files = paths_[path];
  std::vector<std::string> cells(2 * stage_columns_.size());
  for (std::size_t s = 0; s < files.column_of_stage.size(); ++s) {
    const auto c = static_cast<std::size_t>(files.column_of_stage[s]);
    cells[2 * c] = number_text(t.stage_start_ns[s]);
    cells[2 * c + 1] = number_text(t.stage_end_ns[s]);
  }
  std::string row = files.layout.name + "," + std::to_string(t.index) + "," +
                    number_text(t.produced_ns);
  for (const std::string& cell : cells) row += "," + cell;
  row += "," + number_text(t.arrival_ns) + "," + number_text(t.latency_ns) + "\n";
  files.rows << row;
  if (!with_trace_) return;
  // Times in microseconds, as the format wants.
  for (std::size_t s = 0; s < t.stage_start_ns.size(); ++s) {
    write_trace_event(Json{{"name", "Data " + std::to_string(t.index)},
                           {"cat", files.layout.stages[s]},
                           {"ph", "X"},
                           {"pid", path + 1},
                           {"tid", s + 1},
                           {"ts", t.stage_start_ns[s] / 1000.0},
                           {"dur", (t.stage_end_ns[s] - t.stage_start_ns[s]) / 1000.0},
                           {"args", {{"data_index", t.index}}}}
                          .dump());
  }
}

void PipelineOutputs::finish(const PipelineResult& result) {
  // arrivals.csv: the header, then each path's rows in turn.
  const std::filesystem::path arrivals = folder_ / kArrivalsFile;
  std::ofstream csv = open_for_writing(arrivals);
  csv << "path,data_index,produced_ns";
  for (const std::string& name : stage_columns_) csv << "," << name << "_start_ns," << name << "_end_ns";
  csv << ",arrival_ns,latency_ns\n";
  for (PathFiles& files : paths_) {
    require_written(files.rows, files.rows_file);
    files.rows.close();
    std::ifstream rows(files.rows_file, std::ios::binary);
    if (rows.peek() != std::ifstream::traits_type::eof()) csv << rows.rdbuf();
    rows.close();
    std::filesystem::remove(files.rows_file);
  }
  require_written(csv, arrivals);
  if (with_trace_) {
    trace_ << "\n]}\n";
    require_written(trace_, folder_ / kTraceFile);
    trace_.close();
  }
  write_text(folder_ / "summary.json", summary_json(result, timeline_data_).dump(2) + "\n");
  write_text(folder_ / "stats.json", stats_json(result).dump(2) + "\n");
  // The testbed composition: every block's statistics, by path.
  nlohmann::json statistics = nlohmann::json::object();
  for (const PathResult& path : result.paths) {
    if (!path.statistics.is_null()) statistics[path.name] = path.statistics;
  }
  if (!statistics.empty()) write_text(folder_ / "statistics.json", statistics.dump(2) + "\n");
}

}  // namespace rnicsim
