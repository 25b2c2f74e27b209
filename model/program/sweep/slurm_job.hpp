#pragma once
// A sweep as a Slurm job array: one sbatch script whose array tasks each run
// a chunk of the points still missing, through `rnicsim sweep --task-list`.
//
// Submission k writes <out>/slurm/sweep-k.sbatch and tasks-k.txt (line t: the
// folder names of array task t's points), so an earlier array still running
// keeps its own list. Each task writes its points' records as a local run does; `rnicsim
// sweep --collect` then merges them into the table.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "program/sweep/sweep_plan.hpp"

namespace rnicsim::sweep {

struct SlurmOptions {
  std::optional<std::string> partition;
  std::optional<std::string> time;  // sbatch --time, e.g. 00:30:00
  std::optional<std::string> mem;   // sbatch --mem per task, e.g. 2G
  std::size_t max_parallel = 0;     // array tasks at once (%K); 0: Slurm's choice
  std::size_t chunk = 0;            // points per task; 0: 1, or more to stay under kMaxArrayTasks
  bool dry_run = false;
};

// Slurm's default MaxArraySize is 1001 (array indices 0..1000).
constexpr std::size_t kMaxArrayTasks = 1000;

struct SlurmJob {
  std::filesystem::path script;
  std::filesystem::path tasks;
  std::size_t task_count = 0;
  std::size_t points_per_task = 1;
};

// Writes the script and its task list (folder names, '/' between them) for
// `missing` (indices into `points`, in order). Throws config::ConfigError when
// the chunks would make more array tasks than Slurm's default MaxArraySize.
SlurmJob write_slurm_job(const std::filesystem::path& out, const SweepFile& sweep,
                         const std::filesystem::path& program, const std::vector<Point>& points,
                         const std::vector<std::size_t>& missing, const SlurmOptions& options);

// Submits the script with `sbatch --parsable` and keeps the job id beside it
// (sweep-k.job); returns the id. Throws std::runtime_error when sbatch cannot
// be started or refuses the job.
std::string submit_slurm_job(const SlurmJob& job);

// The folder names on one line of a task list ('/' between them).
std::vector<std::string> task_folders(const std::string& line);

// The points of earlier submissions in <out>/slurm whose array tasks Slurm
// still holds, pending or running (`squeue -h -r -j ID -o %K` for each kept
// job id): a resubmission leaves them out rather than queue them twice.
struct QueuedPoints {
  std::set<std::string> folders;
  std::vector<std::string> jobs;      // the job ids that still hold some
  std::vector<std::string> warnings;  // a job squeue could not be asked about
};
QueuedPoints queued_points(const std::filesystem::path& out);

}  // namespace rnicsim::sweep
