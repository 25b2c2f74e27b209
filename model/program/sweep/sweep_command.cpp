#include "program/sweep/sweep_command.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <ostream>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <thread>

#include "common/simulation.hpp"
#include "config/config.hpp"
#include "program/experiments/output_files.hpp"
#include "program/experiments/plot.hpp"
#include "program/sweep/folder_lock.hpp"
#include "program/sweep/point_runner.hpp"
#include "program/sweep/program_id.hpp"
#include "program/sweep/sweep_plan.hpp"
#include "program/sweep/sweep_table.hpp"

namespace rnicsim::sweep {
namespace {

namespace fs = std::filesystem;
using config::ConfigError;

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitBadInput = 2;

[[noreturn]] void bad_option(const std::string& option, const std::string& reason) {
  throw ConfigError(option.empty() ? "rnicsim sweep" : "rnicsim sweep " + option, "", reason);
}

// Up to nine decimal digits and nothing else, as a number; nullopt otherwise.
std::optional<std::size_t> digits_value(const std::string& text) {
  const bool plain = !text.empty() && text.size() <= 9 &&
                     std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!plain) return std::nullopt;
  return std::stoul(text);
}

std::size_t positive_integer(const std::string& option, const std::string& text,
                             std::size_t most) {
  const std::size_t value = digits_value(text).value_or(0);
  if (value < 1 || value > most) {
    bad_option(option, "expected an integer from 1 to " + std::to_string(most) + ", got \"" +
                           config::printable(text) + "\"");
  }
  return value;
}

// A point or task index: 0 to 999999999.
std::size_t index_value(const std::string& option, const std::string& digits) {
  const std::optional<std::size_t> value = digits_value(digits);
  if (!value) bad_option(option, "expected an index (0, 1, ...), got \"" + config::printable(digits) + "\"");
  return *value;
}

// "3,7-9" -> 3, 7, 8, 9; an index given twice runs once.
std::vector<std::size_t> point_list(const std::string& text) {
  auto index = [&](const std::string& digits) { return index_value("--points", digits); };
  std::set<std::size_t> seen;
  std::vector<std::size_t> points;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::string part = text.substr(at, comma - at);
    const std::size_t dash = part.find('-');
    const std::size_t first = index(part.substr(0, dash));
    const std::size_t last = dash == std::string::npos ? first : index(part.substr(dash + 1));
    if (last < first) bad_option("--points", "the range " + part + " runs backwards");
    if (last - first >= kMaxPoints) bad_option("--points", "the range " + part + " is too long");
    for (std::size_t i = first; i <= last; ++i) {
      if (seen.insert(i).second) points.push_back(i);
    }
    at = comma + 1;
  }
  return points;
}

// Slurm options travel into #SBATCH lines: one plain word each.
std::string slurm_word(const std::string& option, const std::string& text) {
  const bool plain = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == ':' || c == '-' || c == '_' || c == '.' || c == ',' || c == '+';
  });
  if (!plain) {
    bad_option(option, "expected one word of letters, digits and :-_.,+ (got \"" +
                           config::printable(text) + "\")");
  }
  return text;
}

// The sweep folder, as checked_output_folder checks a run's: an existing
// one only if it is empty or an earlier sweep's.
fs::path prepare_out(const std::string& out) {
  if (out.empty()) bad_option("--out \"\"", "is empty: give the sweep's folder");
  const std::string source = "rnicsim sweep --out " + out;
  fs::path folder;
  try {
    folder = checked_output_folder(out, source, "sweep.json", "an rnicsim sweep folder",
                                   "writing into it");
  } catch (const fs::filesystem_error& e) {
    throw ConfigError(source, "", e.code().message() + ": " + e.path1().string());
  }
  std::error_code error;
  fs::create_directories(folder, error);
  if (error) bad_option("--out " + out, "cannot create it: " + error.message());
  return folder;
}

// The cores this process may run on (its affinity: a Slurm job's or a
// taskset's share, not the machine's).
unsigned default_jobs() {
  cpu_set_t cpus;
  if (sched_getaffinity(0, sizeof cpus, &cpus) == 0 && CPU_COUNT(&cpus) > 0) {
    return static_cast<unsigned>(CPU_COUNT(&cpus));
  }
  const unsigned cores = std::thread::hardware_concurrency();
  return cores == 0 ? 1 : cores;
}

// The points an array task runs: line `task` + 1 of the task list, folder
// names separated by '/' (which no folder name holds). Names, not indices, so
// a sweep file edited after submission cannot make a task run other points.
std::vector<std::size_t> task_points(const std::string& list, std::size_t task,
                                     const std::vector<Point>& points) {
  std::ifstream file(list);
  if (!file) bad_option("--task-list " + list, "cannot be read");
  std::string line;
  for (std::size_t i = 0; i <= task; ++i) {
    if (!std::getline(file, line)) {
      bad_option("--task " + std::to_string(task), "the task list " + list + " has no such line");
    }
  }
  std::map<std::string, std::size_t> by_folder;
  for (const Point& point : points) by_folder.emplace(point.folder, point.index);
  std::vector<std::size_t> indices;
  for (const std::string& name : task_folders(line)) {
    const auto found = by_folder.find(name);
    if (found == by_folder.end()) {
      bad_option("--task-list " + list, "point " + config::printable(name) +
                                            " is not in the sweep file any more (was it edited "
                                            "after submission?)");
    }
    indices.push_back(found->second);
  }
  return indices;
}

// Writes the table and draws the plots; prints the tally; returns the exit code.
int finish(const fs::path& folder, const SweepFile& sweep, const std::vector<Point>& points,
           std::ostream& out, std::ostream& err) {
  const TableTally tally = write_table(folder, sweep, points);
  if (tally.ok > 0) draw_plot("plot_sweep.py", folder, out);
  out << "sweep: " << points.size() << " points: " << tally.ok << " ok, " << tally.failed
      << " failed" << (tally.missing > 0 ? ", " + std::to_string(tally.missing) + " not run" : "")
      << "; table in " << (folder / "results.csv").string() << "\n";
  for (const std::string& problem : tally.metric_errors) {
    err << "rnicsim: error: " << sweep.given_path << ": " << problem << "\n";
  }
  if (!tally.metric_errors.empty()) return kExitBadInput;
  return tally.failed == 0 && tally.missing == 0 ? kExitOk : kExitFailed;
}

// #SBATCH lines cannot quote: a path with a blank, a quote or a control
// character there would be cut or misread by sbatch.
void check_slurm_paths(const SweepOptions& options) {
  for (const auto& [option, path] : {std::pair<std::string, std::string>{"--out", options.out},
                                     {"SWEEP.json", options.sweep_file}}) {
    const fs::path absolute = fs::absolute(path);
    const std::string text = absolute.string();
    if (std::any_of(text.begin(), text.end(), [](char c) {
          return c == ' ' || c == '\'' || c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20;
        })) {
      bad_option(option + " " + config::printable(path),
                 "a Slurm job script cannot name this path (it holds a blank, a quote, a "
                 "backslash or a control character): choose another for --slurm");
    }
  }
}

void warn_invalid(const std::vector<const Point*>& points, std::ostream& err) {
  for (const Point* point : points) {
    if (point->invalid.empty()) continue;
    err << "rnicsim: point " << point->index << " (" << point->folder
        << ") is not run: " << point->invalid << "\n";
  }
}

}  // namespace

std::string sweep_usage() {
  return "usage: rnicsim sweep SWEEP.json --out DIR [-j N]\n"
         "       rnicsim sweep SWEEP.json --out DIR --slurm [--partition P] [--time T]\n"
         "                     [--mem M] [--max-parallel K] [--chunk C] [--dry-run]\n"
         "       rnicsim sweep SWEEP.json --out DIR --collect\n"
         "       rnicsim sweep SWEEP.json --out DIR --points LIST [-j N]\n"
         "\n"
         "Runs every point of the sweep file (configs/README.md, \"Sweep files\") as its own\n"
         "rnicsim process, N at a time (default: the machine's cores), each in\n"
         "DIR/points/<its parameters>/. A point that finished is never run again: rerun the\n"
         "same command after an interruption or a failure. Then writes DIR/results.csv,\n"
         "DIR/results.jsonl and DIR/plots/.\n"
         "  --slurm     write DIR/slurm/sweep-K.sbatch, a job array of the points not yet\n"
         "              done, and submit it with sbatch (--dry-run: write it only)\n"
         "  --collect   merge the finished points into the table and plots\n"
         "  --points    run these points (\"3,7-9\": indices as the table numbers them)\n"
         "  --task-list FILE --task T   what a Slurm array task runs: line T + 1 of FILE\n"
         "Exit status: 0 every point ok, 1 a point failed or has not run, 2 bad command\n"
         "line or sweep file (nothing runs). SIGINT stops the running points, which\n"
         "leave no record, and ends the sweep by that signal.\n";
}

SweepOptions parse_sweep_options(const std::vector<std::string>& args) {
  SweepOptions options;
  bool out_given = false;
  std::vector<std::string> slurm_only;
  auto mode = [&](const std::string& option, SweepMode wanted) {
    if (options.mode != SweepMode::kLocal && options.mode != wanted) {
      bad_option(option, "--slurm, --collect and --points exclude each other");
    }
    options.mode = wanted;
  };
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= args.size()) bad_option(arg, "needs a value");
      return args[++i];
    };
    if (arg == "-h" || arg == "--help") {
      options.help = true;
      return options;
    } else if (arg == "--out") {
      options.out = value();
      out_given = true;
    } else if (arg == "-j" || arg == "--jobs") {
      options.jobs = static_cast<unsigned>(positive_integer(arg, value(), 1024));
    } else if (arg.rfind("-j", 0) == 0 && arg.size() > 2 && arg[2] != '-') {
      options.jobs = static_cast<unsigned>(positive_integer("-j", arg.substr(2), 1024));
    } else if (arg == "--slurm") {
      mode(arg, SweepMode::kSlurm);
    } else if (arg == "--collect") {
      mode(arg, SweepMode::kCollect);
    } else if (arg == "--points") {
      mode(arg, SweepMode::kPoints);
      options.points = point_list(value());
    } else if (arg == "--task-list") {
      mode(arg, SweepMode::kPoints);
      options.task_list = value();
    } else if (arg == "--task") {
      options.task = index_value(arg, value());
    } else if (arg == "--partition") {
      options.slurm.partition = slurm_word(arg, value());
      slurm_only.push_back(arg);
    } else if (arg == "--time") {
      options.slurm.time = slurm_word(arg, value());
      slurm_only.push_back(arg);
    } else if (arg == "--mem") {
      options.slurm.mem = slurm_word(arg, value());
      slurm_only.push_back(arg);
    } else if (arg == "--max-parallel") {
      options.slurm.max_parallel = positive_integer(arg, value(), kMaxArrayTasks);
      slurm_only.push_back(arg);
    } else if (arg == "--chunk") {
      options.slurm.chunk = positive_integer(arg, value(), kMaxPoints);
      slurm_only.push_back(arg);
    } else if (arg == "--dry-run") {
      options.slurm.dry_run = true;
      slurm_only.push_back(arg);
    } else if (arg.rfind("-", 0) == 0) {
      bad_option(arg, "unknown option (see rnicsim sweep --help)");
    } else if (options.sweep_file.empty()) {
      options.sweep_file = arg;
    } else {
      bad_option(arg, "a second SWEEP.json (the first is " + options.sweep_file + ")");
    }
  }
  if (options.sweep_file.empty()) bad_option("", "needs a SWEEP.json");
  if (!out_given) bad_option("", "needs --out DIR: the folder of the sweep's points and table");
  if (!slurm_only.empty() && options.mode != SweepMode::kSlurm) {
    bad_option(slurm_only.front(), "goes with --slurm");
  }
  if (options.jobs != 0 && (options.mode == SweepMode::kSlurm || options.mode == SweepMode::kCollect)) {
    bad_option("-j", "runs points here: not with --slurm or --collect");
  }
  return options;
}

int sweep_command(const SweepOptions& options, std::ostream& out, std::ostream& err) {
  // Everything about the file is checked before anything is written or run.
  const SweepFile sweep = read_sweep_file(options.sweep_file);
  std::vector<Point> points = plan_points(sweep);
  std::vector<std::size_t> chosen = options.points;
  if (!options.task_list.empty()) chosen = task_points(options.task_list, options.task, points);
  for (std::size_t index : chosen) {
    if (index >= points.size()) {
      bad_option("--points", "point " + std::to_string(index) + " does not exist (the sweep has " +
                                 std::to_string(points.size()) + ", 0 to " +
                                 std::to_string(points.size() - 1) + ")");
    }
  }
  // Each point's configuration is loaded as its run will load it; an array
  // task loads its own points alone.
  const std::string program = program_id();
  if (options.mode == SweepMode::kPoints) {
    for (std::size_t index : chosen) check_point(sweep, points[index], program);
  } else {
    for (Point& point : points) check_point(sweep, point, program);
  }
  if (options.mode == SweepMode::kSlurm) check_slurm_paths(options);
  const fs::path folder = prepare_out(options.out);
  const fs::path executable = fs::read_symlink("/proc/self/exe");
  install_sweep_signal_handlers();

  if (options.mode == SweepMode::kPoints) {
    if (!fs::exists(folder / "sweep.json")) write_sweep_record(folder, sweep, points.size());
    std::vector<const Point*> todo;
    for (std::size_t index : chosen) todo.push_back(&points[index]);
    warn_invalid(todo, err);
    const RunnerTally tally = run_points(
        folder, todo, RunnerOptions{executable, options.jobs != 0 ? options.jobs : 1, nullptr, &out});
    if (const int signal_number = stop_requested()) {
      err << "rnicsim: sweep stopped by signal " << signal_number << ": " << tally.interrupted
          << " running points stopped (no record: they run again next time)\n";
      return kExitFailed;
    }
    return tally.failed == 0 && tally.busy == 0 ? kExitOk : kExitFailed;
  }

  // One local sweep (or collection) at a time per folder; array tasks, which
  // run disjoint points, take no lock of the folder.
  const FolderLock lock(folder);
  if (!lock.held()) bad_option("--out " + folder.string(), "another rnicsim sweep is working in this folder");
  write_sweep_record(folder, sweep, points.size());
  if (options.mode == SweepMode::kCollect) return finish(folder, sweep, points, out, err);

  std::vector<const Point*> all;
  for (const Point& point : points) all.push_back(&point);
  warn_invalid(all, err);
  if (options.mode == SweepMode::kSlurm) {
    const QueuedPoints queued = queued_points(folder);
    for (const std::string& warning : queued.warnings) err << "rnicsim: warning: " << warning << "\n";
    std::vector<std::size_t> missing;
    std::size_t invalid = 0;
    std::size_t still_queued = 0;
    for (const Point& point : points) {
      if (!point.invalid.empty()) {
        ++invalid;
        continue;
      }
      const auto record = read_record(folder, point);
      if (record && record->ok) continue;
      if (queued.folders.count(point.folder) != 0) {
        ++still_queued;
        continue;
      }
      missing.push_back(point.index);
    }
    if (still_queued != 0) {
      out << "sweep: " << still_queued << " points are still queued or running in job";
      for (const std::string& id : queued.jobs) out << " " << id;
      out << " and are not submitted again\n";
    }
    if (missing.empty()) {
      out << "sweep: no point to submit: "
          << points.size() - invalid - still_queued << " finished, " << still_queued
          << " queued, " << invalid
          << " refused by the configuration (named above); --collect writes the table\n";
      return invalid == 0 ? kExitOk : kExitFailed;
    }
    const SlurmJob job = write_slurm_job(folder, sweep, executable, points, missing, options.slurm);
    out << "sweep: " << missing.size() << " points in " << job.task_count << " array tasks: "
        << job.script.string() << "\n";
    if (options.slurm.dry_run) return kExitOk;
    try {
      const std::string id = submit_slurm_job(job);
      out << "sweep: submitted job " << id << "; when it has finished: rnicsim sweep "
          << options.sweep_file << " --out " << options.out << " --collect\n";
    } catch (const std::runtime_error& e) {
      err << "rnicsim: error: " << e.what() << "\n";
      return kExitFailed;
    }
    return kExitOk;
  }

  const unsigned jobs = options.jobs != 0 ? options.jobs : default_jobs();
  std::ostream* terminal = isatty(STDOUT_FILENO) ? &out : nullptr;
  out << "rnicsim sweep: " << options.sweep_file << " -> " << options.out << ": "
      << points.size() << " points, " << jobs << " at a time" << std::endl;
  const RunnerTally tally = run_points(folder, all, RunnerOptions{executable, jobs, terminal, &out});
  if (tally.already_done > 0) {
    out << "sweep: " << tally.already_done << " points had finished before and were not run again\n";
  }
  if (const int signal_number = stop_requested()) {
    err << "rnicsim: sweep stopped by signal " << signal_number << ": "
        << tally.already_done + tally.ok + tally.failed << " of " << points.size()
        << " points done; run the same command again to finish the others\n";
    return 128 + signal_number;
  }
  if (tally.busy > 0) {
    err << "rnicsim: " << tally.busy << " points were being run by another sweep; rerun when it "
        << "has finished\n";
  }
  return finish(folder, sweep, points, out, err);
}

}  // namespace rnicsim::sweep
