#pragma once
// `rnicsim sweep`: run a sweep file's points here, submit them to Slurm, or
// merge finished points into the table.
//   rnicsim sweep SWEEP.json --out DIR [-j N]          run here, N at a time
//   rnicsim sweep SWEEP.json --out DIR --slurm [--partition P] [--time T]
//                 [--mem M] [--max-parallel K] [--chunk C] [--dry-run]
//   rnicsim sweep SWEEP.json --out DIR --collect       table and plots
//   rnicsim sweep SWEEP.json --out DIR --points 3,7-9  run these points
//   rnicsim sweep SWEEP.json --out DIR --task-list FILE --task T   (an array task)
#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

#include "program/sweep/slurm_job.hpp"

namespace rnicsim::sweep {

enum class SweepMode { kLocal, kSlurm, kCollect, kPoints };

struct SweepOptions {
  std::string sweep_file;
  std::string out;
  SweepMode mode = SweepMode::kLocal;
  unsigned jobs = 0;  // 0: the machine's cores
  SlurmOptions slurm;
  std::vector<std::size_t> points;  // --points
  std::string task_list;            // --task-list (an array task's points, by folder name)
  std::size_t task = 0;             // --task: its line, from 0
  bool help = false;
};

// The words after "sweep". Throws config::ConfigError naming the option.
SweepOptions parse_sweep_options(const std::vector<std::string>& args);
std::string sweep_usage();

// Exit codes: 0 every point ok (or the job submitted), 1 a point failed or is
// missing, 2 bad command line or sweep file (before any point runs); a
// sweep stopped by SIGINT/SIGTERM returns with rnicsim::stop_requested() set.
int sweep_command(const SweepOptions& options, std::ostream& out, std::ostream& err);

}  // namespace rnicsim::sweep
