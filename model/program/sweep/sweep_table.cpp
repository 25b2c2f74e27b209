#include "program/sweep/sweep_table.hpp"

#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "program/experiments/output_files.hpp"
#include "program/sweep/point_runner.hpp"

namespace rnicsim::sweep {
namespace {

namespace fs = std::filesystem;

// One CSV cell: a string as itself, anything else as JSON; quoted when it
// holds a comma, a quote or a line break.
std::string csv_cell(const Json& value) {
  std::string text = value.is_null() ? "" : value.is_string() ? value.get<std::string>() : value.dump();
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

// The run's JSON files, read once per point.
class RunFiles {
 public:
  explicit RunFiles(fs::path folder) : folder_(std::move(folder)) {}
  const Json& get(const std::string& name) {
    auto it = files_.find(name);
    if (it == files_.end()) {
      std::error_code error;
      Json document;
      if (fs::is_regular_file(folder_ / name, error)) {
        std::ifstream in(folder_ / name);
        document = Json::parse(in, nullptr, false);
      }
      it = files_.emplace(name, std::move(document)).first;
    }
    return it->second;
  }

 private:
  fs::path folder_;
  std::map<std::string, Json> files_;
};

}  // namespace

void write_sweep_record(const fs::path& out, const SweepFile& sweep, std::size_t points) {
  Json axes = Json::array();
  for (const Axis& axis : sweep.axes) {
    axes.push_back({{"key", axis.key}, {"label", axis.label}, {"values", axis.values}});
  }
  Json metrics = Json::array();
  for (const Metric& metric : sweep.collect) {
    metrics.push_back({{"name", metric.name}, {"file", metric.file}, {"pointer", metric.pointer}});
  }
  Json record{{"schema", "rnicsim.sweep/1"},
              {"sweep_file", sweep.given_path},
              {"combine", sweep.zip ? "zip" : "product"},
              {"repetitions", sweep.repetitions},
              {"points", points},
              {"axes", axes},
              {"metrics", metrics},
              {"document", sweep.document}};
  if (sweep.pareto) {
    record["pareto"] = {{"x", sweep.pareto->x},
                        {"x_goal", sweep.pareto->x_minimize ? "min" : "max"},
                        {"y", sweep.pareto->y},
                        {"y_goal", sweep.pareto->y_minimize ? "min" : "max"}};
  }
  replace_text(out / "sweep.json", record.dump(2) + "\n");
}

TableTally write_table(const fs::path& out, const SweepFile& sweep,
                       const std::vector<Point>& points) {
  TableTally tally;
  const bool seed_axis = sweep.seed_is_axis();
  std::ostringstream csv;
  std::ostringstream jsonl;
  csv << "point,folder";
  for (const Axis& axis : sweep.axes) csv << "," << csv_cell(axis.key);
  if (!seed_axis) csv << ",seed";
  csv << ",status";
  for (const Metric& metric : sweep.collect) csv << "," << csv_cell(metric.name);
  csv << ",wall_seconds,peak_memory_mib,error\n";

  std::vector<std::size_t> metric_misses(sweep.collect.size(), 0);
  for (const Point& point : points) {
    std::optional<PointRecord> record;
    std::string status = "failed";
    std::string error = point.invalid;
    if (point.invalid.empty()) {
      record = read_record(out, point);
      status = !record ? "missing" : record->ok ? "ok" : "failed";
      if (record && !record->ok) error = record->error;
    }
    ++(status == "ok" ? tally.ok : status == "missing" ? tally.missing : tally.failed);

    Json metrics = Json::object();
    RunFiles files(point_folder(out, point) / "run");
    for (std::size_t m = 0; m < sweep.collect.size(); ++m) {
      const Metric& metric = sweep.collect[m];
      Json value;
      if (status == "ok") {
        const Json& document = files.get(metric.file);
        const Json::json_pointer pointer(metric.pointer);
        if (document.contains(pointer)) {
          value = document.at(pointer);
        } else {
          ++metric_misses[m];
        }
      }
      metrics[metric.name] = value;
    }

    csv << point.index << "," << csv_cell(point.folder);
    for (const Json& value : point.values) csv << "," << csv_cell(value);
    if (!seed_axis) csv << "," << point.seed;
    csv << "," << status;
    for (const Metric& metric : sweep.collect) csv << "," << csv_cell(metrics[metric.name]);
    const bool peak_known = record && record->peak_memory_bytes;
    csv << "," << (record ? fixed(record->wall_seconds, 3) : "") << ","
        << (peak_known ? fixed(static_cast<double>(*record->peak_memory_bytes) / (1024.0 * 1024.0), 1)
                       : "")
        << "," << csv_cell(Json(error)) << "\n";

    Json row{{"point", point.index},
             {"folder", point.folder},
             {"parameters", point_parameters(sweep, point)},
             {"status", status},
             {"metrics", metrics},
             {"wall_seconds", record ? Json(record->wall_seconds) : Json()},
             {"peak_memory_bytes", peak_known ? Json(*record->peak_memory_bytes) : Json()},
             {"error", error}};
    jsonl << row.dump() << "\n";
  }
  for (std::size_t m = 0; m < sweep.collect.size(); ++m) {
    if (metric_misses[m] == 0) continue;
    const Metric& metric = sweep.collect[m];
    tally.metric_errors.push_back("collect." + metric.name + ": " + metric.pointer + " is not in " +
                                  metric.file + " of " + std::to_string(metric_misses[m]) +
                                  " finished point(s)");
  }
  replace_text(out / "results.csv", csv.str());
  replace_text(out / "results.jsonl", jsonl.str());
  return tally;
}

}  // namespace rnicsim::sweep
