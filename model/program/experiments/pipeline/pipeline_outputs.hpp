#pragma once
// Files the pipeline experiment writes into its output folder. The per-Data
// files are written while the run goes, for the first `timeline_data` Data of
// each path, so memory stays flat however many Data a run moves:
//   arrivals.csv  one row per path and Data: production, each stage's start and end, arrival
//   trace.json    Chrome/Perfetto trace events, one track per stage (unless disabled)
// and when it is over, from figures that cover every Data:
//   summary.json  the figures per path (schema in results/README.md)
//   stats.json    per-block statistics with units
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "program/experiments/pipeline/pipeline_experiment.hpp"

namespace rnicsim {

class PipelineOutputs : public PipelineObserver {
 public:
  PipelineOutputs(std::filesystem::path folder, std::uint64_t timeline_data, bool with_trace);

  void begin(const std::vector<PathLayout>& paths) override;
  void arrived(std::size_t path, const DataTimeline& data) override;
  // Writes summary.json and stats.json and completes arrivals.csv and trace.json.
  // Throws OutputError naming a file that could not be written.
  void finish(const PipelineResult& result);

 private:
  struct PathFiles {
    PathLayout layout;
    std::vector<int> column_of_stage;  // each stage's index among the CSV's stage columns
    std::filesystem::path rows_file;   // this path's arrivals.csv rows, joined at the end
    std::ofstream rows;
  };

  void write_trace_event(const std::string& text);

  std::filesystem::path folder_;
  std::uint64_t timeline_data_;
  bool with_trace_;
  std::vector<std::string> stage_columns_;
  std::vector<PathFiles> paths_;
  std::ofstream trace_;
  bool first_trace_event_ = true;
};

}  // namespace rnicsim
