#pragma once
// A sweep's table: one row per point, from the points' records and runs.
//
// results.csv and results.jsonl in the sweep folder hold, per point (in the
// plan's order): its index and folder, its axis values and seed, its status
// (ok, failed, or missing: not run yet), the collected metrics, the run's wall
// time and peak resident memory, and a failed point's error. sweep.json
// records the sweep (its file, axes, metrics, Pareto columns) for the plots.
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "program/sweep/sweep_plan.hpp"

namespace rnicsim::sweep {

struct TableTally {
  std::size_t ok = 0;
  std::size_t failed = 0;
  std::size_t missing = 0;
  // "collect.<name>: <pointer> is not in <file> (k points)", one per metric
  // some finished point lacks: a fault of the sweep file, found only now.
  std::vector<std::string> metric_errors;
};

// Writes <out>/sweep.json: what plots and readers of the table need to know.
void write_sweep_record(const std::filesystem::path& out, const SweepFile& sweep,
                        std::size_t points);

// Writes <out>/results.csv and <out>/results.jsonl (each whole or not at all).
TableTally write_table(const std::filesystem::path& out, const SweepFile& sweep,
                       const std::vector<Point>& points);

}  // namespace rnicsim::sweep
