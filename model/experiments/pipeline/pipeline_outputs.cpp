#include "experiments/pipeline/pipeline_outputs.hpp"

#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/time_units.hpp"
#include "experiments/output_files.hpp"

namespace rnicsim {
namespace {

using Json = nlohmann::json;

Json summary_json(const PipelineResult& result) {
  Json paths = Json::object();
  for (const PathResult& path : result.paths) {
    Json stages = Json::array();
    for (const StageSummary& stage : path.stages) stages.push_back(stage.name);
    Json latencies = Json::array();
    Json arrivals = Json::array();
    for (const DataTimeline& t : path.data) {
      latencies.push_back(t.latency_ns);
      arrivals.push_back(t.arrival_ns);
    }
    Json entry = {{"stages", stages},
                  {"first_latency_ns", path.first_latency_ns},
                  {"latencies_ns", latencies},
                  {"arrivals_ns", arrivals},
                  {"steady_gbps", path.steady_gbps},
                  {"bottleneck", path.bottleneck},
                  {"data_mismatches", path.data_mismatches}};
    if (result.framing == "ethernet") entry["encapsulation"] = path.encapsulation;
    paths[path.name] = entry;
  }
  return {{"schema", "rnicsim.pipeline.summary/1"},
          {"experiment", "pipeline"},
          {"workload",
           {{"data_bits", result.data_bits},
            {"interval_ns", result.interval_ns},
            {"count", result.count},
            {"seed", result.seed}}},
          {"framing", result.framing},
          {"paths", paths}};
}

// Stage columns are the union of every path's stages, in first-seen order;
// a path without a stage leaves its cells empty.
std::string arrivals_csv(const PipelineResult& result) {
  std::vector<std::string> columns;
  std::set<std::string> seen;
  for (const PathResult& path : result.paths) {
    for (std::size_t i = 0; i < path.stages.size(); ++i) {
      const std::string& name = path.stages[i].name;
      if (seen.insert(name).second) {
        // Keep a stage after the one it follows on the path that has it.
        auto after = columns.end();
        if (i > 0) {
          for (auto it = columns.begin(); it != columns.end(); ++it) {
            if (*it == path.stages[i - 1].name) after = it + 1;
          }
        }
        columns.insert(after, name);
      }
    }
  }
  std::string csv = "path,data_index,produced_ns";
  for (const std::string& name : columns) csv += "," + name + "_start_ns," + name + "_end_ns";
  csv += ",arrival_ns,latency_ns\n";
  for (const PathResult& path : result.paths) {
    for (const DataTimeline& t : path.data) {
      csv += path.name + "," + std::to_string(t.index) + "," + number_text(t.produced_ns);
      for (const std::string& name : columns) {
        std::string start;
        std::string end;
        for (std::size_t i = 0; i < path.stages.size(); ++i) {
          if (path.stages[i].name == name) {
            start = number_text(t.stage_start_ns[i]);
            end = number_text(t.stage_end_ns[i]);
          }
        }
        csv += "," + start + "," + end;
      }
      csv += "," + number_text(t.arrival_ns) + "," + number_text(t.latency_ns) + "\n";
    }
  }
  return csv;
}

// Chrome trace-event format: one process per path, one thread (track) per
// stage, one complete event per Data and stage. Times are in microseconds.
Json trace_json(const PipelineResult& result) {
  Json events = Json::array();
  for (std::size_t p = 0; p < result.paths.size(); ++p) {
    const PathResult& path = result.paths[p];
    events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", p + 1},
                      {"args", {{"name", path.name}}}});
    for (std::size_t s = 0; s < path.stages.size(); ++s) {
      events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", p + 1}, {"tid", s + 1},
                        {"args", {{"name", path.stages[s].name}}}});
      events.push_back({{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", p + 1},
                        {"tid", s + 1}, {"args", {{"sort_index", s}}}});
    }
    for (const DataTimeline& t : path.data) {
      for (std::size_t s = 0; s < path.stages.size(); ++s) {
        events.push_back({{"name", "Data " + std::to_string(t.index)},
                          {"cat", path.stages[s].name},
                          {"ph", "X"},
                          {"pid", p + 1},
                          {"tid", s + 1},
                          {"ts", t.stage_start_ns[s] / 1000.0},
                          {"dur", (t.stage_end_ns[s] - t.stage_start_ns[s]) / 1000.0},
                          {"args", {{"data_index", t.index}}}});
      }
    }
  }
  return {{"traceEvents", events}, {"displayTimeUnit", "ns"}};
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
  }
  return {{"units",
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
}

}  // namespace

void write_pipeline_outputs(const PipelineResult& result, const std::filesystem::path& folder,
                            bool with_trace) {
  write_text(folder / "summary.json", summary_json(result).dump(2) + "\n");
  write_text(folder / "arrivals.csv", arrivals_csv(result));
  write_text(folder / "stats.json", stats_json(result).dump(2) + "\n");
  if (with_trace) write_text(folder / "trace.json", trace_json(result).dump() + "\n");
}

}  // namespace rnicsim
