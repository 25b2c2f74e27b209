#include "sweep/point_runner.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <sys/time.h>
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
constexpr std::size_t kMaxErrorText = 1000;

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

Json record_json(const Point& point, const PointRecord& record) {
  return Json{{"schema", "rnicsim.sweep.point/1"},
              {"index", point.index},
              {"folder", point.folder},
              {"status", record.ok ? "ok" : "failed"},
              {"exit_code", record.exit_code},
              {"signal", record.signal},
              {"error", record.error},
              {"wall_seconds", record.wall_seconds},
              {"peak_memory_bytes", record.peak_memory_bytes},
              {"arguments", point.arguments},
              {"identity", point.identity}};
}

// point.json appears whole or not at all.
void write_record(const fs::path& out, const Point& point, const PointRecord& record) {
  const fs::path folder = point_folder(out, point);
  const fs::path staging = folder / (std::string(kRecordFile) + ".tmp");
  {
    std::ofstream file(staging);
    file << record_json(point, record).dump(2) << "\n";
    if (!file.flush()) throw std::runtime_error("cannot write " + staging.string());
  }
  fs::rename(staging, folder / kRecordFile);
}

struct Running {
  const Point* point;
  Clock::time_point start;
};

// Starts `program ARGS --out <point>/run` with stdout and stderr in the point's
// folder, in a process group of its own: a Ctrl-C reaches the sweep alone,
// which passes it on once, so each run cleans up before it ends.
pid_t start_point(const fs::path& out, const Point& point, const fs::path& program) {
  const fs::path folder = point_folder(out, point);
  fs::create_directories(folder);
  std::error_code ignored;
  fs::remove(folder / kRecordFile, ignored);
  std::vector<std::string> words{program.string()};
  words.insert(words.end(), point.arguments.begin(), point.arguments.end());
  words.push_back("--out");
  words.push_back((folder / "run").string());
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  const std::string stdout_path = (folder / "stdout.txt").string();
  const std::string stderr_path = (folder / "stderr.txt").string();

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, stdout_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderr_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setpgroup(&attributes, 0);
  posix_spawnattr_setflags(&attributes,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  pid_t pid = 0;
  const int error = posix_spawn(&pid, argv[0], &actions, &attributes, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (error != 0) {
    throw std::runtime_error("cannot start " + program.string() + ": " + std::strerror(error));
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
  text << std::fixed << ", " << record.wall_seconds << " s, "
       << static_cast<double>(record.peak_memory_bytes) / (1024.0 * 1024.0) << " MiB";
  if (!record.error.empty()) text << ": " << record.error;
  return text.str();
}

void on_tick(int) {}

// While it lives, SIGALRM interrupts the wait for a run every quarter second,
// so the progress line moves and a stop request is seen at once even when it
// arrived just before the wait began.
class WaitTicks {
 public:
  WaitTicks() {
    struct sigaction action {};
    action.sa_handler = on_tick;
    sigemptyset(&action.sa_mask);
    sigaction(SIGALRM, &action, &previous_);
    const itimerval every{{0, 250'000}, {0, 250'000}};
    setitimer(ITIMER_REAL, &every, nullptr);
  }
  ~WaitTicks() {
    const itimerval off{};
    setitimer(ITIMER_REAL, &off, nullptr);
    sigaction(SIGALRM, &previous_, nullptr);
  }
  WaitTicks(const WaitTicks&) = delete;
  WaitTicks& operator=(const WaitTicks&) = delete;

 private:
  struct sigaction previous_ {};
};

}  // namespace

fs::path point_folder(const fs::path& out, const Point& point) {
  return out / "points" / point.folder;
}

std::optional<PointRecord> read_record(const fs::path& out, const Point& point) {
  std::ifstream file(point_folder(out, point) / kRecordFile);
  if (!file) return std::nullopt;
  const Json json = Json::parse(file, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object() || json.value("identity", Json()) != point.identity) return std::nullopt;
  try {
    PointRecord record;
    record.ok = json.at("status") == "ok";
    record.exit_code = json.at("exit_code").get<int>();
    record.signal = json.at("signal").get<int>();
    record.error = json.at("error").get<std::string>();
    record.wall_seconds = json.at("wall_seconds").get<double>();
    record.peak_memory_bytes = json.at("peak_memory_bytes").get<std::uint64_t>();
    return record;
  } catch (const Json::exception&) {
    return std::nullopt;  // another schema: run the point again
  }
}

void install_sweep_signal_handlers() {
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: a signal ends the pause at once
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
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
  auto report = [&](const Point& point, const PointRecord& record) {
    std::ostream* to = options.terminal != nullptr ? (record.ok ? nullptr : options.terminal)
                                                   : options.log;
    if (to == nullptr) return;
    if (to == options.terminal) *to << "\r";
    *to << "point " << point.index << " " << point.folder << ": " << describe(record)
        << (to == options.terminal ? "                    \n" : "\n");
  };

  const WaitTicks ticks;
  while (next < queue.size() || !running.empty()) {
    const int signals = g_signals;
    if (stop_requested() != 0 && signals > signals_passed_on) {
      // First signal: each run stops and cleans up; a second: they end now.
      for (const auto& [pid, unused] : running) kill(pid, signals >= 2 ? SIGKILL : stop_requested());
      signals_passed_on = signals;
    }
    while (stop_requested() == 0 && next < queue.size() && running.size() < options.jobs) {
      const Point* point = queue[next++];
      running.emplace(start_point(out, *point, options.program), Running{point, Clock::now()});
      show_progress(true);
    }
    if (running.empty()) break;
    int status = 0;
    rusage usage{};
    const pid_t pid = wait4(-1, &status, 0, &usage);
    if (pid <= 0) {
      if (errno != EINTR) throw std::system_error(errno, std::generic_category(), "wait4");
      show_progress(false);
      continue;
    }
    const auto it = running.find(pid);
    if (it == running.end()) continue;
    const Point& point = *it->second.point;
    PointRecord record;
    record.wall_seconds = std::chrono::duration<double>(Clock::now() - it->second.start).count();
    record.peak_memory_bytes = static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;  // KiB on Linux
    running.erase(it);
    if (WIFSIGNALED(status)) {
      record.signal = WTERMSIG(status);
    } else {
      record.exit_code = WEXITSTATUS(status);
    }
    record.ok = WIFEXITED(status) && record.exit_code == 0;
    if (!record.ok && stop_requested() != 0 && record.signal != 0) {
      ++tally.interrupted;  // stopped by us: no record, it runs again next time
      show_progress(true);
      continue;
    }
    if (!record.ok) {
      record.error = last_error_line(point_folder(out, point) / "stderr.txt");
      if (record.error.empty()) {
        record.error = record.signal != 0 ? std::string("killed by signal ") + strsignal(record.signal)
                                          : "exit code " + std::to_string(record.exit_code);
      }
    }
    write_record(out, point, record);
    ++(record.ok ? tally.ok : tally.failed);
    report(point, record);
    show_progress(true);
  }
  if (options.terminal != nullptr) *options.terminal << "\n";
  return tally;
}

}  // namespace rnicsim::sweep
