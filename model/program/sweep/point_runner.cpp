#include "program/sweep/point_runner.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fstream>
#include <map>
#include <ostream>
#include <sstream>
#include <system_error>

#include "common/simulation.hpp"
#include "program/experiments/output_files.hpp"
#include "program/sweep/folder_lock.hpp"

extern char** environ;

namespace rnicsim::sweep {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

volatile std::sig_atomic_t g_signals = 0;

void on_signal(int signal_number) {
  request_stop(signal_number);
  g_signals = g_signals + 1;
}

constexpr const char* kRecordFile = "point.json";
constexpr const char* kPeakFile = "peak_memory.txt";
constexpr std::size_t kMaxErrorText = 1000;
// The signals a run gets back at their default (the sweep handles or ignores them).
constexpr int kResetSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGCHLD};

// The last non-empty line of the run's stderr: rnicsim's one error line.
std::string last_error_line(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  std::string last;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  }
  if (last.size() > kMaxErrorText) last = last.substr(0, kMaxErrorText) + "...";
  return config::printable(last);
}

// What the run wrote of its peak memory (bytes), if it got that far.
std::optional<std::uint64_t> reported_peak(const fs::path& file) {
  std::ifstream in(file);
  std::uint64_t bytes = 0;
  if (in >> bytes) return bytes;
  return std::nullopt;
}

// point.json appears whole or not at all (replace_text).
void write_record(const fs::path& out, const Point& point, const PointRecord& record) {
  const Json json{{"schema", "rnicsim.sweep.point/1"},
                  {"index", point.index},
                  {"folder", point.folder},
                  {"status", record.ok ? "ok" : "failed"},
                  {"exit_code", record.exit_code},
                  {"signal", record.signal},
                  {"error", record.error},
                  {"wall_seconds", record.wall_seconds},
                  {"peak_memory_bytes",
                   record.peak_memory_bytes ? Json(*record.peak_memory_bytes) : Json()},
                  {"arguments", point.arguments},
                  {"identity", point.identity}};
  replace_text(point_folder(out, point) / kRecordFile, json.dump(2) + "\n");
}

// The point's lock is held while it runs: by the sweep (its descriptor here)
// and by the run (which gets it as descriptor 3), so a point whose sweep died
// while it ran stays locked until the run ends too.
struct Running {
  const Point* point;
  Clock::time_point start;
  FolderLock lock;
};

// Starts `program ARGS --out <point>/run` with stdout and stderr in the point's
// folder, in a process group of its own: a Ctrl-C reaches the sweep alone,
// which passes it on once, so each run cleans up before it ends. Throws
// std::runtime_error when the run cannot be started.
pid_t start_point(const fs::path& out, const Point& point, const fs::path& program,
                  const FolderLock& lock) {
  const fs::path folder = point_folder(out, point);
  std::error_code ignored;
  fs::remove(folder / kRecordFile, ignored);
  fs::remove(folder / kPeakFile, ignored);
  std::vector<std::string> words{program.string()};
  words.insert(words.end(), point.arguments.begin(), point.arguments.end());
  words.push_back("--out");
  words.push_back((folder / "run").string());
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  std::string peak_setting = std::string(kPeakMemoryVariable) + "=" + (folder / kPeakFile).string();
  std::vector<char*> envp;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    if (std::strncmp(*entry, kPeakMemoryVariable, std::strlen(kPeakMemoryVariable)) != 0) {
      envp.push_back(*entry);
    }
  }
  envp.push_back(peak_setting.data());
  envp.push_back(nullptr);
  const std::string stdout_path = (folder / "stdout.txt").string();
  const std::string stderr_path = (folder / "stderr.txt").string();

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, stdout_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderr_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, lock.fd(), 3);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t defaults;
  sigemptyset(&defaults);
  for (int signal_number : kResetSignals) sigaddset(&defaults, signal_number);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setpgroup(&attributes, 0);
  posix_spawnattr_setflags(&attributes,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  // The run is this very program, whatever has since been built at its path:
  // the spawned child's /proc/self/exe is still the sweep's own executable
  // (until the exec replaces it), and the points' identity is its build.
  pid_t pid = 0;
  const int error =
      posix_spawn(&pid, "/proc/self/exe", &actions, &attributes, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (error != 0) {
    throw std::runtime_error("cannot start the run (" + program.string() + ", output in " +
                             folder.string() + "): " + std::strerror(error));
  }
  return pid;
}

std::string describe(const PointRecord& record) {
  std::ostringstream text;
  if (record.ok) {
    text << "ok";
  } else if (record.signal != 0) {
    text << "failed (signal " << record.signal << ")";
  } else {
    text << "failed (exit " << record.exit_code << ")";
  }
  text.precision(3);
  text << std::fixed << ", " << record.wall_seconds << " s";
  if (record.peak_memory_bytes) {
    text << ", " << static_cast<double>(*record.peak_memory_bytes) / (1024.0 * 1024.0) << " MiB";
  }
  if (!record.error.empty()) text << ": " << record.error;
  return text.str();
}

// SIGCHLD stays blocked while points run, so a run's end is waited for with
// sigtimedwait (which a stop signal's handler interrupts) and no handler ever
// interrupts a write to stdout.
class BlockedChildSignal {
 public:
  BlockedChildSignal() {
    sigset_t child;
    sigemptyset(&child);
    sigaddset(&child, SIGCHLD);
    sigprocmask(SIG_BLOCK, &child, &previous_);
  }
  ~BlockedChildSignal() { sigprocmask(SIG_SETMASK, &previous_, nullptr); }
  BlockedChildSignal(const BlockedChildSignal&) = delete;
  BlockedChildSignal& operator=(const BlockedChildSignal&) = delete;

  // Until a run may have ended, a stop signal arrives, or a quarter second passes.
  static void wait_briefly() {
    sigset_t child;
    sigemptyset(&child);
    sigaddset(&child, SIGCHLD);
    const timespec quarter{0, 250'000'000};
    sigtimedwait(&child, nullptr, &quarter);
  }

 private:
  sigset_t previous_{};
};

}  // namespace

fs::path point_folder(const fs::path& out, const Point& point) {
  return out / "points" / point.folder;
}

std::optional<PointRecord> read_record(const fs::path& out, const Point& point) {
  std::ifstream file(point_folder(out, point) / kRecordFile);
  if (!file || point.identity.empty()) return std::nullopt;
  const Json json = Json::parse(file, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object() || json.value("identity", Json()) != point.identity) return std::nullopt;
  try {
    PointRecord record;
    record.ok = json.at("status") == "ok";
    record.exit_code = json.at("exit_code").get<int>();
    record.signal = json.at("signal").get<int>();
    record.error = json.at("error").get<std::string>();
    record.wall_seconds = json.at("wall_seconds").get<double>();
    if (!json.at("peak_memory_bytes").is_null()) {
      record.peak_memory_bytes = json.at("peak_memory_bytes").get<std::uint64_t>();
    }
    return record;
  } catch (const Json::exception&) {
    return std::nullopt;  // another schema: run the point again
  }
}

void install_sweep_signal_handlers() {
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  for (int signal_number : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&action.sa_mask, signal_number);
  action.sa_flags = SA_RESTART;  // writes go on; sigtimedwait returns at once anyway
  for (int signal_number : {SIGINT, SIGTERM, SIGHUP}) sigaction(signal_number, &action, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
}

RunnerTally run_points(const fs::path& out, const std::vector<const Point*>& todo,
                       const RunnerOptions& options) {
  RunnerTally tally;
  std::vector<const Point*> queue;
  for (const Point* point : todo) {
    if (!point->invalid.empty()) {
      ++tally.failed;
      continue;
    }
    const std::optional<PointRecord> record = read_record(out, *point);
    if (record && record->ok) {
      ++tally.already_done;
    } else {
      queue.push_back(point);
    }
  }
  const std::size_t total = todo.size();
  const Clock::time_point began = Clock::now();
  std::map<pid_t, Running> running;
  std::size_t next = 0;
  int signals_passed_on = 0;
  Clock::time_point last_progress{};

  auto show_progress = [&](bool force) {
    if (options.terminal == nullptr) return;
    const Clock::time_point now = Clock::now();
    if (!force && now - last_progress < std::chrono::seconds(1)) return;
    last_progress = now;
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(now - began).count();
    *options.terminal << "\rsweep: " << (tally.already_done + tally.ok + tally.failed) << "/"
                      << total << " points done (" << tally.failed << " failed), "
                      << running.size() << " running, " << seconds << " s" << "        "
                      << std::flush;
  };
  // Without a terminal every point gets a line; on one, only the failed ones
  // (above the progress line).
  auto report = [&](const Point& point, const PointRecord& record) {
    const bool on_terminal = options.terminal != nullptr;
    if (on_terminal && record.ok) return;
    std::ostream& to = on_terminal ? *options.terminal : *options.log;
    to << (on_terminal ? "\r" : "") << "point " << point.index << " " << point.folder << ": "
       << describe(record) << (on_terminal ? "                    " : "") << std::endl;
  };
  auto finish = [&](const Point& point, PointRecord record) {
    write_record(out, point, record);
    ++(record.ok ? tally.ok : tally.failed);
    report(point, record);
  };

  const BlockedChildSignal blocked;
  try {
    while (next < queue.size() || !running.empty()) {
      const int signals = g_signals;
      if (stop_requested() != 0 && signals > signals_passed_on) {
        // First signal: each run stops and cleans up; a second: they end now.
        // Passed on as SIGINT: a run that Slurm's scancel has sent SIGTERM
        // already handles a SIGINT as the same request.
        for (const auto& [pid, unused] : running) kill(-pid, signals >= 2 ? SIGKILL : SIGINT);
        signals_passed_on = signals;
      }
      while (stop_requested() == 0 && next < queue.size() && running.size() < options.jobs) {
        const Point& point = *queue[next++];
        fs::create_directories(point_folder(out, point));
        FolderLock lock(point_folder(out, point));
        if (!lock.held()) {
          ++tally.busy;
          *options.log << "point " << point.index << " " << point.folder
                       << ": another sweep is running it; skipped" << std::endl;
          continue;
        }
        // Another sweep may have finished it since this one looked.
        if (const auto record = read_record(out, point); record && record->ok) {
          ++tally.already_done;
          continue;
        }
        try {
          const pid_t pid = start_point(out, point, options.program, lock);
          running.emplace(pid, Running{&point, Clock::now(), std::move(lock)});
        } catch (const std::runtime_error& e) {
          PointRecord record;
          record.exit_code = 127;
          record.error = config::printable(e.what());
          finish(point, record);
        }
        show_progress(true);
      }
      if (running.empty()) break;
      int status = 0;
      const pid_t pid = waitpid(-1, &status, WNOHANG);
      if (pid == 0 || (pid == -1 && errno == EINTR)) {
        BlockedChildSignal::wait_briefly();
        show_progress(false);
        continue;
      }
      if (pid == -1) throw std::system_error(errno, std::generic_category(), "waitpid");
      const auto it = running.find(pid);
      if (it == running.end()) continue;
      const Point& point = *it->second.point;
      PointRecord record;
      record.wall_seconds = std::chrono::duration<double>(Clock::now() - it->second.start).count();
      running.erase(it);  // releases the sweep's hold on the point's lock
      if (WIFSIGNALED(status)) {
        record.signal = WTERMSIG(status);
      } else {
        record.exit_code = WEXITSTATUS(status);
      }
      record.ok = WIFEXITED(status) && record.exit_code == 0;
      record.peak_memory_bytes = reported_peak(point_folder(out, point) / kPeakFile);
      if (!record.ok && stop_requested() != 0 && record.signal != 0) {
        ++tally.interrupted;  // stopped by us: no record, it runs again next time
        show_progress(true);
        continue;
      }
      if (!record.ok) {
        record.error = last_error_line(point_folder(out, point) / "stderr.txt");
        if (record.error.empty()) {
          record.error = record.signal != 0
                             ? std::string("killed by signal ") + strsignal(record.signal)
                             : "exit code " + std::to_string(record.exit_code);
        }
      }
      finish(point, record);
      show_progress(true);
    }
  } catch (...) {
    // The sweep cannot go on: its runs stop too rather than outlive it unrecorded.
    for (const auto& [pid, unused] : running) kill(-pid, SIGINT);
    for (const auto& [pid, unused] : running) {
      int status = 0;
      while (waitpid(pid, &status, 0) == -1 && errno == EINTR) {
      }
    }
    throw;
  }
  if (options.terminal != nullptr) *options.terminal << std::endl;
  return tally;
}

}  // namespace rnicsim::sweep
