#pragma once
// Runs a sweep's points, each as its own rnicsim process, a few at a time.
//
// A point runs in <out>/points/<folder>/: the run's results in run/, its
// standard output and error in stdout.txt and stderr.txt, and point.json,
// written last (atomically) when the run ends: its status, exit code, error,
// wall time and peak resident memory (the run's own VmHWM, which it writes to
// peak_memory.txt when RNICSIM_PEAK_MEMORY_FILE names it: wait4's ru_maxrss
// would count the sweep's memory too, which a spawned child inherits), and its
// identity. A point whose point.json says ok with the same identity is done
// and never runs again; a failed, stale or unfinished one runs again. While a
// point runs, its folder's .lock is held (by the run itself too), so two
// sweeps never run one point at once.
#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "program/sweep/sweep_plan.hpp"

namespace rnicsim::sweep {

// How one run of a point ended.
struct PointRecord {
  bool ok = false;
  int exit_code = 0;     // the process's exit code; 0 when a signal ended it
  int signal = 0;        // the signal that ended it, or 0
  std::string error;     // the run's last error line (failed points)
  double wall_seconds = 0;
  std::optional<std::uint64_t> peak_memory_bytes;  // unknown if the run did not report it
};

std::filesystem::path point_folder(const std::filesystem::path& out, const Point& point);

// The environment variable a run reads to report its peak memory (program/cli/main.cpp).
constexpr const char* kPeakMemoryVariable = "RNICSIM_PEAK_MEMORY_FILE";

// The record of the point's last run, if point.json exists, parses and has
// the point's identity (else the point is not done).
std::optional<PointRecord> read_record(const std::filesystem::path& out, const Point& point);

struct RunnerOptions {
  // The rnicsim executable's path: each run's argv[0]. The run itself is
  // always the sweep's own executable, even if the file at this path has
  // been rebuilt since the sweep started.
  std::filesystem::path program;
  unsigned jobs = 1;              // points at once
  std::ostream* terminal = nullptr;  // the progress line goes here; null: a line per point to `log`
  std::ostream* log = nullptr;
};

struct RunnerTally {
  std::size_t already_done = 0;
  std::size_t ok = 0;
  std::size_t failed = 0;       // ran and failed, or invalid
  std::size_t interrupted = 0;  // stopped by SIGINT/SIGTERM: no record
  std::size_t busy = 0;         // being run by another sweep (its lock is held): skipped
};

// Runs every point of `todo` not already done, at most options.jobs at once.
// Invalid points are counted failed without a run. SIGINT, SIGTERM or SIGHUP
// (as signalled through rnicsim::stop_requested) stops starting points and
// is passed on as SIGINT to the running ones, which clean up and leave no
// record; a second signal kills them. Returns the tally.
RunnerTally run_points(const std::filesystem::path& out, const std::vector<const Point*>& todo,
                       const RunnerOptions& options);

// Installs the handlers a sweep uses: SIGINT, SIGTERM and SIGHUP ask for a
// stop (rnicsim::request_stop), a second one kills the running points; SIGPIPE
// is ignored, so a closed pipe on stdout does not end the sweep with its runs.
// The runs get every signal's default back.
void install_sweep_signal_handlers();

}  // namespace rnicsim::sweep
