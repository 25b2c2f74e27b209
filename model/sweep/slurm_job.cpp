#include "sweep/slurm_job.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "config/config.hpp"
#include "experiments/output_files.hpp"

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
  while (fs::exists(folder / ("sweep-" + std::to_string(k) + ".sbatch"))) ++k;
  job.script = folder / ("sweep-" + std::to_string(k) + ".sbatch");
  job.tasks = folder / ("tasks-" + std::to_string(k) + ".txt");

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
         << "#SBATCH --output=" << slurm_pattern_text((folder / ("sweep-" + std::to_string(k))).string())
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

std::string submit_slurm_job(const SlurmJob& job) {
  int pipe_ends[2];
  if (pipe(pipe_ends) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_ends[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, pipe_ends[0]);
  posix_spawn_file_actions_addclose(&actions, pipe_ends[1]);
  std::string program = "sbatch";
  std::string parsable = "--parsable";
  std::string script = job.script.string();
  char* argv[] = {program.data(), parsable.data(), script.data(), nullptr};
  pid_t pid = 0;
  const int error = posix_spawnp(&pid, "sbatch", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_ends[1]);
  if (error != 0) {
    close(pipe_ends[0]);
    throw std::runtime_error(std::string("cannot start sbatch: ") + std::strerror(error) +
                             " (is Slurm's client installed? --dry-run writes the script alone)");
  }
  std::string output;
  char buffer[256];
  for (ssize_t n; (n = read(pipe_ends[0], buffer, sizeof buffer)) != 0;) {
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    output.append(buffer, static_cast<std::size_t>(n));
  }
  close(pipe_ends[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) == -1 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw std::runtime_error("sbatch refused " + job.script.string() + " (its message is above)");
  }
  // --parsable prints "jobid" or "jobid;cluster".
  const std::string id = output.substr(0, output.find_first_of(";\n"));
  if (id.empty()) throw std::runtime_error("sbatch printed no job id for " + job.script.string());
  return id;
}

}  // namespace rnicsim::sweep
