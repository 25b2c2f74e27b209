#pragma once
// Files the pipeline experiment writes into its output folder:
//   summary.json  the figures per path (schema in results/README.md)
//   arrivals.csv  one row per path and Data: production, each stage's start and end, arrival
//   trace.json    Chrome/Perfetto trace events, one track per stage
//   stats.json    per-block statistics with units
#include <filesystem>

#include "experiments/pipeline/pipeline_experiment.hpp"

namespace rnicsim {

void write_pipeline_outputs(const PipelineResult& result, const std::filesystem::path& folder,
                            bool with_trace);

}  // namespace rnicsim
