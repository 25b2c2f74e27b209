#include "program/sweep/slurm_job.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "config/config.hpp"
#include "program/experiments/output_files.hpp"

extern char** environ;

namespace rnicsim::sweep {
namespace {

namespace fs = std::filesystem;

// A word as sh reads it back unchanged: single-quoted, ' as '\''.
std::string shell_quoted(const std::string& word) {
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// sbatch reads %A, %a, %j ... in --output as patterns: a literal % is %%.
std::string slurm_pattern_text(const std::string& path) {
  std::string text;
  for (char c : path) text += c == '%' ? std::string("%%") : std::string(1, c);
  return text;
}

// Submission k's files in <out>/slurm: sweep-k.sbatch, its task list
// tasks-k.txt, the job id sbatch gave it beside the script (sweep-k.job), and
// its tasks' logs sweep-k-<task>.out.
fs::path submission_stem(const fs::path& folder, std::size_t k) {
  return folder / ("sweep-" + std::to_string(k));
}
fs::path script_file(const fs::path& folder, std::size_t k) {
  return submission_stem(folder, k).string() + ".sbatch";
}
fs::path task_list_file(const fs::path& folder, std::size_t k) {
  return folder / ("tasks-" + std::to_string(k) + ".txt");
}
fs::path job_id_file(fs::path script) { return script.replace_extension(".job"); }

}  // namespace

SlurmJob write_slurm_job(const fs::path& out, const SweepFile& sweep, const fs::path& program,
                         const std::vector<Point>& points, const std::vector<std::size_t>& missing,
                         const SlurmOptions& options) {
  SlurmJob job;
  job.points_per_task = options.chunk != 0 ? options.chunk
                                           : (missing.size() + kMaxArrayTasks - 1) / kMaxArrayTasks;
  if (job.points_per_task == 0) job.points_per_task = 1;
  job.task_count = (missing.size() + job.points_per_task - 1) / job.points_per_task;
  if (job.task_count > kMaxArrayTasks) {
    throw config::ConfigError(
        "rnicsim sweep --chunk " + std::to_string(options.chunk), "",
        std::to_string(missing.size()) + " points at " + std::to_string(job.points_per_task) +
            " per task make " + std::to_string(job.task_count) + " array tasks; Slurm's default "
            "MaxArraySize allows " + std::to_string(kMaxArrayTasks) + " (index 0 to 1000): a larger "
            "--chunk, or none");
  }
  const fs::path folder = out / "slurm";
  fs::create_directories(folder);
  std::size_t k = 1;
  while (fs::exists(script_file(folder, k))) ++k;
  job.script = script_file(folder, k);
  job.tasks = task_list_file(folder, k);

  std::ostringstream tasks;
  for (std::size_t t = 0; t < job.task_count; ++t) {
    for (std::size_t i = t * job.points_per_task;
         i < std::min(missing.size(), (t + 1) * job.points_per_task); ++i) {
      tasks << (i == t * job.points_per_task ? "" : "/") << points[missing[i]].folder;
    }
    tasks << "\n";
  }
  write_text(job.tasks, tasks.str());

  std::ostringstream script;
  script << "#!/bin/sh\n"
         << "# rnicsim sweep " << sweep.path.string() << ": " << missing.size() << " points in "
         << job.task_count << " array tasks (submission " << k << ")\n"
         << "#SBATCH --job-name=rnicsim-sweep\n"
         << "#SBATCH --array=0-" << job.task_count - 1;
  if (options.max_parallel != 0) script << "%" << options.max_parallel;
  script << "\n#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n"
         << "#SBATCH --output=" << slurm_pattern_text(submission_stem(folder, k).string())
         << "-%a.out\n";
  if (options.partition) script << "#SBATCH --partition=" << *options.partition << "\n";
  if (options.time) script << "#SBATCH --time=" << *options.time << "\n";
  if (options.mem) script << "#SBATCH --mem=" << *options.mem << "\n";
  script << "# Array task t runs the points on line t + 1 of the task list.\n"
         << "exec " << shell_quoted(program.string()) << " sweep "
         << shell_quoted(sweep.path.string()) << " --out " << shell_quoted(out.string())
         << " --task-list " << shell_quoted(job.tasks.string())
         << " --task \"$SLURM_ARRAY_TASK_ID\" -j 1\n";
  write_text(job.script, script.str());
  fs::permissions(job.script, fs::perms::owner_exec | fs::perms::group_exec, fs::perm_options::add);
  return job;
}

namespace {

struct Captured {
  bool started = false;
  int error = 0;  // errno of a failed start
  bool succeeded = false;
  std::string output;
};

// Runs `words` (found on PATH) with its standard output captured; its
// standard error stays the sweep's, or goes to /dev/null when `quiet`.
Captured run_capturing(std::vector<std::string> words, bool quiet) {
  Captured captured;
  int pipe_ends[2];
  if (pipe(pipe_ends) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_ends[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, pipe_ends[0]);
  posix_spawn_file_actions_addclose(&actions, pipe_ends[1]);
  if (quiet) posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  captured.error = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_ends[1]);
  if (captured.error != 0) {
    close(pipe_ends[0]);
    return captured;
  }
  captured.started = true;
  char buffer[256];
  for (ssize_t n; (n = read(pipe_ends[0], buffer, sizeof buffer)) != 0;) {
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    captured.output.append(buffer, static_cast<std::size_t>(n));
  }
  close(pipe_ends[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) == -1 && errno == EINTR) {
  }
  captured.succeeded = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  return captured;
}

}  // namespace

std::string submit_slurm_job(const SlurmJob& job) {
  const Captured sbatch = run_capturing({"sbatch", "--parsable", job.script.string()}, false);
  if (!sbatch.started) {
    throw std::runtime_error(std::string("cannot start sbatch: ") + std::strerror(sbatch.error) +
                             " (is Slurm's client installed? --dry-run writes the script alone)");
  }
  if (!sbatch.succeeded) {
    throw std::runtime_error("sbatch refused " + job.script.string() + " (its message is above)");
  }
  // --parsable prints "jobid" or "jobid;cluster".
  const std::string id = sbatch.output.substr(0, sbatch.output.find_first_of(";\n"));
  if (id.empty()) throw std::runtime_error("sbatch printed no job id for " + job.script.string());
  write_text(job_id_file(job.script), id + "\n");
  return id;
}

std::vector<std::string> task_folders(const std::string& line) {
  std::vector<std::string> folders;
  for (std::size_t at = 0; at <= line.size();) {
    const std::size_t slash = std::min(line.find('/', at), line.size());
    folders.push_back(line.substr(at, slash - at));
    at = slash + 1;
  }
  return folders;
}

QueuedPoints queued_points(const fs::path& out) {
  QueuedPoints queued;
  const fs::path folder = out / "slurm";
  for (std::size_t k = 1; fs::exists(script_file(folder, k)); ++k) {
    std::ifstream id_file(job_id_file(script_file(folder, k)));
    std::string id;
    if (!(id_file >> id)) continue;  // written with --dry-run, or never submitted
    // squeue lists a job's pending and running array tasks, one per line
    // (-r); a job that has left the queue lists nothing, or is unknown.
    const Captured squeue = run_capturing({"squeue", "-h", "-r", "-j", id, "-o", "%K"}, true);
    if (!squeue.started) {
      queued.warnings.push_back("cannot ask squeue about job " + id + " (" +
                                std::strerror(squeue.error) + "): its unfinished points, if any, "
                                "are submitted again");
      continue;
    }
    if (!squeue.succeeded) continue;
    std::ifstream task_list(task_list_file(folder, k));
    std::vector<std::string> lines;
    for (std::string line; std::getline(task_list, line);) lines.push_back(line);
    std::istringstream listed(squeue.output);
    bool holds_some = false;
    for (std::string task; listed >> task;) {
      if (task.size() > 9 ||
          task.find_first_not_of("0123456789") != std::string::npos) {
        continue;  // not an array index
      }
      const unsigned long t = std::stoul(task);
      if (t >= lines.size()) continue;
      for (std::string& name : task_folders(lines[t])) queued.folders.insert(std::move(name));
      holds_some = true;
    }
    if (holds_some) queued.jobs.push_back(id);
  }
  return queued;
}

}  // namespace rnicsim::sweep
