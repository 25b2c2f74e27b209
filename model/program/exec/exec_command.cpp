#include "program/exec/exec_command.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <ostream>
#include <stdexcept>

#include "common/module_macros.hpp"
#include "config/config.hpp"
#include "config/run_config.hpp"
#include "program/experiments/experiments.hpp"
#include "program/experiments/perf/perf_experiment.hpp"
#include "system/application_api.hpp"
#include "system/testbed.hpp"
#include "system/wire_capture.hpp"

namespace rnicsim::exec {
namespace {

using bridge::Request;

// A program that waits this long in simulated time with nothing that could
// wake it is taken as stuck (a completion channel no CQ will fire).
const sc_core::sc_time kStuckAfter{100, sc_core::SC_SEC};

[[noreturn]] void usage(const std::string& reason) { throw std::invalid_argument(reason); }

// A free loopback port: bound to 0, read, released.
std::uint32_t free_port() {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    throw std::runtime_error(std::string("cannot pick a loopback port: ") + std::strerror(errno));
  }
  close(fd);
  return ntohs(address.sin_port);
}

std::vector<std::string> substituted(std::vector<std::string> command, std::uint32_t port) {
  for (std::string& word : command) {
    for (const auto& [from, to] :
         {std::pair<std::string, std::string>{"{port}", std::to_string(port)},
          std::pair<std::string, std::string>{"{server}", "127.0.0.1"}}) {
      for (std::size_t at = word.find(from); at != std::string::npos; at = word.find(from, at)) {
        word.replace(at, from.size(), to);
        at += to.size();
      }
    }
  }
  return command;
}

std::string library_dir() {
  if (const char* dir = std::getenv("RNICSIM_APP_LIBRARY_DIR")) return dir;
  return RNICSIM_APP_LIBRARY_DIR;
}

std::string prepended(const char* variable, const std::string& value, char separator) {
  const char* old = std::getenv(variable);
  return old == nullptr || *old == '\0' ? value : value + separator + old;
}

// One attached program.
struct App {
  std::string role;  // "server" or "client"
  std::vector<std::string> command;
  bridge::AppSession* session = nullptr;
  pid_t pid = -1;
  int fd = -1;
  // kCmWait: in rdma_get_cm_event on a channel with no event yet.
  enum class State {
    kNotStarted,
    kRunning,
    kVerb,
    kBlocked,
    kCmWait,
    kEnded
  } state = State::kNotStarted;
  bridge::Block block{};
  std::uint64_t blocked_at_ps = 0;
  std::uint32_t cm_channel = 0;  // kCmWait: the channel it waits on
  std::uint64_t clock_ps = 0;    // its latest request's or reply's time
  bool handed = false;           // its verb request is with the session
  bridge::RequestHeader header{};
  std::vector<std::uint8_t> body;
  int passed_fd = -1;
  int status = 0;
};

// The first "cpu MHz" of /proc/cpuinfo, read once for both programs: their
// TSCs tick at the same rate whatever the host's frequency does meanwhile.
std::string cpuinfo_mhz() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("cpu MHz", 0) == 0 && line.find(':') != std::string::npos) {
      return line.substr(line.find(':') + 1);
    }
  }
  return "1000";
}

// The TSC trap (host/app_library/time_interposer.cpp) on this host: a child
// sets prctl(PR_SET_TSC, PR_TSC_SIGSEGV), as the library does in each
// program, and reads the TSC once; its SIGSEGV handler counts the fault and
// lets the TSC be read again. Some hosts accept the prctl yet never fault
// (a Firecracker VM on AMD EPYC): the programs' RDTSC then reads the host's.
volatile sig_atomic_t tsc_faults = 0;

void count_tsc_fault(int) {
  tsc_faults = tsc_faults + 1;
  prctl(PR_SET_TSC, PR_TSC_ENABLE, 0, 0, 0);  // the RDTSC runs again, untrapped
}

// Exits 0 when the RDTSC faulted, 1 when it did not, 2 when the trap could
// not be set. Only async-signal-safe calls: the launcher may have threads.
[[noreturn]] void probe_tsc_trap_in_child() {
  struct sigaction action {};
  action.sa_handler = count_tsc_fault;
  sigemptyset(&action.sa_mask);
  sigset_t segv;
  sigemptyset(&segv);
  sigaddset(&segv, SIGSEGV);
  if (sigaction(SIGSEGV, &action, nullptr) != 0 || sigprocmask(SIG_UNBLOCK, &segv, nullptr) != 0 ||
      prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0) != 0) {
    _exit(2);
  }
#if defined(__x86_64__) || defined(__i386__)
  unsigned low = 0;
  unsigned high = 0;
  __asm__ volatile("rdtsc" : "=a"(low), "=d"(high) : : "memory");
  _exit(tsc_faults > 0 ? 0 : 1);
#else
  _exit(2);  // no TSC to trap
#endif
}

// Empty when the TSC trap works here, else what is wrong with it.
std::string tsc_trap_problem() {
  const pid_t pid = fork();
  if (pid == 0) probe_tsc_trap_in_child();
  int status = -1;
  if (pid > 0) {
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  const int code = pid > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code == 0) return "";
  if (code == 1) return "prctl(PR_SET_TSC, PR_TSC_SIGSEGV) succeeds but RDTSC does not fault";
  if (code == 2) return "prctl(PR_SET_TSC, PR_TSC_SIGSEGV) is refused";
  return "a probe of prctl(PR_SET_TSC, PR_TSC_SIGSEGV) did not complete";
}

// Says once, on a host whose TSC the library cannot trap, what the programs'
// times are then. The run goes on: the time calls stay simulated, and
// programs that read nothing else (ibv_rc_pingpong, rdma_cm_example) are
// unaffected. testbench/exec's checkers look for "does not trap RDTSC".
void warn_if_tsc_untrapped(std::ostream& err) {
  if (std::getenv("RNICSIM_NO_TSC_TRAP") != nullptr) return;  // asked for (README)
  const std::string problem = tsc_trap_problem();
  if (problem.empty()) return;
  err << "rnicsim exec: this machine does not trap RDTSC: " << problem
      << ". Programs that read the TSC directly (perftest's get_cycles) see the host's "
         "wall-clock cycles, so the times they report are not simulated; the C library's "
         "time calls and sleeps are still simulated.\n";
}

void start(App& app, const std::string& tsc_mhz) {
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
    throw std::runtime_error(std::string("socketpair: ") + std::strerror(errno));
  }
  const std::string dir = library_dir();
  const std::string preload = prepended("LD_PRELOAD", dir + "/librnicsim_app.so", ':');
  const std::string path = prepended("LD_LIBRARY_PATH", dir, ':');
  std::vector<char*> argv;
  for (std::string& word : app.command) argv.push_back(word.data());
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    // The child's end stays open across exec; the simulator's closes.
    fcntl(pair[1], F_SETFD, 0);
    signal(SIGPIPE, SIG_DFL);  // the launcher's own setting is not the program's
    // The same addresses every run: an MR then spans the same model pages
    // (best effort: a container's seccomp may refuse it).
    personality(ADDR_NO_RANDOMIZE);
    setenv(bridge::kSocketVariable, std::to_string(pair[1]).c_str(), 1);
    setenv("RNICSIM_TSC_MHZ", tsc_mhz.c_str(), 1);
    setenv("LD_PRELOAD", preload.c_str(), 1);
    setenv("LD_LIBRARY_PATH", path.c_str(), 1);
    execvp(argv[0], argv.data());
    std::fprintf(stderr, "rnicsim exec: cannot run %s: %s\n", argv[0], std::strerror(errno));
    _exit(127);
  }
  close(pair[1]);
  app.fd = pair[0];
  app.pid = pid;
  app.state = App::State::kRunning;
}

void write_all(int fd, const void* data, std::size_t bytes) {
  // A program gone: its end is seen on the next read.
  bridge::send_exactly(fd, data, bytes);
}

void reply(App& app, const bridge::Reply& r) {
  write_all(app.fd, &r.header, sizeof r.header);
  if (!r.body.empty()) write_all(app.fd, r.body.data(), r.body.size());
  app.clock_ps = std::max(app.clock_ps, r.header.time_ps);
}

void answer_at(App& app, std::uint64_t time_ps, int status = 0) {
  bridge::Reply r;
  r.header.status = status;
  r.header.time_ps = time_ps;
  reply(app, r);
}

template <class T>
void answer_with(App& app, std::uint64_t time_ps, const T& body) {
  bridge::Reply r;
  r.header.time_ps = time_ps;
  r.header.body_bytes = sizeof(T);
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(&body);
  r.body.assign(bytes, bytes + sizeof(T));
  reply(app, r);
}

template <class T>
bool body_as(const App& app, T* value) {
  if (app.body.size() != sizeof(T)) return false;
  std::memcpy(value, app.body.data(), sizeof(T));
  return true;
}

class Launcher {
 public:
  Launcher(std::vector<App>& apps, std::ostream& err) : apps_(apps), err_(err) {}

  // Runs until every program has ended; false when they were stopped
  // because nothing could wake any of them.
  bool run() {
    start(apps_.front(), tsc_mhz_);
    for (;;) {
      answer_cm_waiters();
      if (all_ended()) return true;
      if (!everyone_waits()) {
        receive();
        continue;
      }
      if (!any_verb()) {
        // Nothing in the simulation can move anyone: what the connection
        // manager held for a program that might still act is settled now
        // (a connect nobody listened for is refused, a DREP delivered).
        if (cm_.holds()) {
          cm_.resolve_held();
          continue;
        }
        if (!any_blocked()) {
          stop("every program waits for an rdma_cm event no program can send");
          return false;
        }
        // Every program is blocked on a socket no other one has written to:
        // only the world outside can wake them.
        receive();
        continue;
      }
      if (!simulate()) return false;
    }
  }

 private:
  bool all_ended() const {
    for (const App& app : apps_) {
      if (app.state != App::State::kEnded) return false;
    }
    return true;
  }

  bool waiting(const App& app) const {
    switch (app.state) {
      case App::State::kVerb:
      case App::State::kEnded:
        return true;
      case App::State::kBlocked:
        return !streams_.pending(app.block);
      case App::State::kCmWait:
        return !cm_.has_event(cm_endpoint(app, app.cm_channel));
      default:
        return false;  // running, or a client not started (its server runs)
    }
  }

  bool everyone_waits() const {
    for (const App& app : apps_) {
      if (app.state == App::State::kNotStarted) continue;
      if (!waiting(app)) return false;
    }
    return true;
  }

  bool any_verb() const {
    for (const App& app : apps_) {
      if (app.state == App::State::kVerb) return true;
    }
    return false;
  }

  bool any_blocked() const {
    for (const App& app : apps_) {
      if (app.state == App::State::kBlocked) return true;
    }
    return false;
  }

  std::uint32_t index_of(const App& app) const {
    return static_cast<std::uint32_t>(&app - apps_.data());
  }

  bridge::CmEndpoint cm_endpoint(const App& app, std::uint32_t channel) const {
    return bridge::CmEndpoint{index_of(app), channel};
  }

  // The next event of the channel, if any, is the program's answer; it
  // resumes when the event arrived, if that is later than its own time.
  bool answer_cm_event(App& app, std::uint64_t time_ps) {
    const std::optional<bridge::CmEvent> event = cm_.take_event(cm_endpoint(app, app.cm_channel));
    if (!event) return false;
    answer_with(app, std::max(time_ps, event->time_ps), *event);
    cm_.advance(index_of(app), app.clock_ps);
    return true;
  }

  // Programs waiting in rdma_get_cm_event whose channel has an event now.
  void answer_cm_waiters() {
    for (App& app : apps_) {
      if (app.state == App::State::kCmWait && answer_cm_event(app, app.blocked_at_ps)) {
        app.state = App::State::kRunning;
      }
    }
  }

  // Waits for messages from the programs that run or are blocked, and
  // handles them.
  void receive() {
    std::vector<pollfd> fds;
    std::vector<App*> owners;
    for (App& app : apps_) {
      // kCmWait: only its end can come; it is seen here.
      if (app.state == App::State::kRunning || app.state == App::State::kBlocked ||
          app.state == App::State::kCmWait) {
        fds.push_back(pollfd{app.fd, POLLIN, 0});
        owners.push_back(&app);
      }
    }
    if (fds.empty()) return;
    if (poll(fds.data(), fds.size(), -1) < 0) return;  // EINTR: look again
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].revents != 0) handle_message(*owners[i]);
    }
  }

  void ended(App& app) {
    close(app.fd);
    int status = 0;
    waitpid(app.pid, &status, 0);
    app.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    app.state = App::State::kEnded;
    // Its kernel's CM ends its connections and listens.
    cm_.ended(index_of(app), app.clock_ps);
    if (app.role == "server" && !stopping_) start_client();
  }

  void start_client() {
    for (App& app : apps_) {
      if (app.state == App::State::kNotStarted) start(app, tsc_mhz_);
    }
  }

  void handle_message(App& app) {
    int passed = -1;
    if (!bridge::receive_exactly(app.fd, &app.header, sizeof app.header, &passed)) {
      ended(app);
      return;
    }
    app.body.assign(app.header.body_bytes, 0);
    if (app.header.body_bytes > 0 &&
        !bridge::receive_exactly(app.fd, app.body.data(), app.body.size(), &passed)) {
      ended(app);
      return;
    }
    const std::uint64_t t = app.header.time_ps;
    app.clock_ps = std::max(app.clock_ps, t);
    cm_.advance(index_of(app), t);
    if (trace_) {
      err_ << "rnicsim exec: " << app.role << " request " << static_cast<int>(app.header.kind)
           << " at " << t << " ps (simulation at " << sc_core::sc_time_stamp().value() << " ps)\n";
    }
    switch (app.header.kind) {
      case Request::kListen:
        answer_at(app, t);
        if (app.role == "server") start_client();
        return;
      case Request::kConnect: {
        bridge::Stream s{};
        if (body_as(app, &s)) streams_.connect(s, t);
        answer_at(app, t);
        return;
      }
      case Request::kSend: {
        bridge::StreamBytes s{};
        if (body_as(app, &s)) streams_.send(s, t);
        answer_at(app, t);
        return;
      }
      case Request::kClose: {
        bridge::Stream s{};
        if (body_as(app, &s)) streams_.close(s, t);
        answer_at(app, t);
        return;
      }
      case Request::kBlockBegin:
        if (body_as(app, &app.block)) {
          app.state = App::State::kBlocked;
          app.blocked_at_ps = t;
        }
        answer_at(app, t);
        return;
      case Request::kCmListen:
      case Request::kCmUnlisten:
      case Request::kCmConnect:
      case Request::kCmAccept:
      case Request::kCmReject:
      case Request::kCmEstablished:
      case Request::kCmDisconnect:
      case Request::kCmRelease:
      case Request::kCmGetEvent:
        handle_cm(app, t);
        return;
      case Request::kBlockEnd: {
        bridge::BlockEnd end{};
        std::uint64_t resume = t;
        if (body_as(app, &end)) resume = streams_.wake(end, app.blocked_at_ps);
        // Never before the simulation's present: the program acts from here on.
        resume = std::max<std::uint64_t>({resume, t, sc_core::sc_time_stamp().value()});
        app.state = App::State::kRunning;
        answer_at(app, resume);
        return;
      }
      default:
        app.state = App::State::kVerb;
        app.handed = false;
        app.passed_fd = passed;
        return;
    }
  }

  // rdma_cm's requests: the connection manager's, answered at once (no
  // simulated time), except an rdma_get_cm_event that finds nothing yet.
  void handle_cm(App& app, std::uint64_t t) {
    const std::uint32_t self = index_of(app);
    int status = EINVAL;
    switch (app.header.kind) {
      case Request::kCmListen: {
        bridge::CmListen listen{};
        if (body_as(app, &listen)) status = cm_.listen(self, listen, t);
        answer_at(app, t, status);
        // As a socket's listen: the client may connect now.
        if (status == 0 && app.role == "server") start_client();
        return;
      }
      case Request::kCmUnlisten: {
        bridge::CmPort port{};
        if (body_as(app, &port)) status = cm_.unlisten(self, port.port, t);
        break;
      }
      case Request::kCmConnect: {
        bridge::CmConnect connect{};
        bridge::CmConnection made{};
        if (body_as(app, &connect)) status = cm_.connect(self, connect, t, &made.connection);
        if (status == 0) {
          answer_with(app, t, made);
          return;
        }
        break;
      }
      case Request::kCmAccept: {
        bridge::CmAccept accept{};
        if (body_as(app, &accept)) status = cm_.accept(self, accept, t);
        break;
      }
      case Request::kCmReject: {
        bridge::CmReject reject{};
        if (body_as(app, &reject)) status = cm_.reject(self, reject, t);
        break;
      }
      case Request::kCmEstablished:
      case Request::kCmDisconnect:
      case Request::kCmRelease: {
        bridge::CmConnection connection{};
        if (!body_as(app, &connection)) break;
        if (app.header.kind == Request::kCmEstablished) {
          status = cm_.established(self, connection, t);
        } else if (app.header.kind == Request::kCmDisconnect) {
          status = cm_.disconnect(self, connection, t);
        } else {
          cm_.release(self, connection, t);
          status = 0;
        }
        break;
      }
      case Request::kCmGetEvent: {
        bridge::CmChannel channel{};
        if (!body_as(app, &channel)) break;
        app.cm_channel = channel.channel;
        if (answer_cm_event(app, t)) return;
        app.state = App::State::kCmWait;
        app.blocked_at_ps = t;
        return;
      }
      default:
        break;
    }
    answer_at(app, t, status);
  }

  // Hands the waiting verbs to their sessions (in the programs' order, so
  // that equal times resolve the same way every run) and simulates until
  // one of them has its reply.
  bool simulate() {
    for (App& app : apps_) {
      if (app.state == App::State::kVerb && !app.handed) {
        app.session->start(app.header, std::move(app.body), app.passed_fd);
        app.passed_fd = -1;
        app.handed = true;
      }
    }
    const sc_core::sc_time limit = sc_core::sc_time_stamp() + kStuckAfter;
    for (;;) {
      sc_core::sc_start(limit - sc_core::sc_time_stamp(), sc_core::SC_EXIT_ON_STARVATION);
      bool replied = false;
      for (App& app : apps_) {
        if (app.session == nullptr) continue;
        if (std::optional<bridge::Reply> r = app.session->take_reply()) {
          reply(app, *r);
          app.state = App::State::kRunning;
          replied = true;
        }
      }
      if (replied) return true;
      if (!sc_core::sc_pending_activity() || sc_core::sc_time_stamp() >= limit) {
        stop("every program waits for what the simulation will not bring");
        return false;
      }
    }
  }

  // Kills the programs: nothing can wake any of them.
  void stop(const std::string& why) {
    err_ << "rnicsim exec: " << why << " (simulated time " << sc_core::sc_time_stamp().to_seconds()
         << " s); stopping them\n";
    stopping_ = true;
    for (App& app : apps_) {
      if (app.state != App::State::kEnded && app.pid > 0) kill(app.pid, SIGKILL);
    }
    for (App& app : apps_) {
      if (app.state != App::State::kEnded && app.pid > 0) ended(app);
    }
  }

  std::vector<App>& apps_;
  std::ostream& err_;
  bool stopping_ = false;
  const std::string tsc_mhz_ = cpuinfo_mhz();
  // RNICSIM_EXEC_TRACE set: every request on standard error.
  const bool trace_ = std::getenv("RNICSIM_EXEC_TRACE") != nullptr;
  bridge::SocketStreams streams_;
  bridge::ConnectionManager cm_;
};

std::array<std::uint8_t, 6> mac_bytes(std::size_t node) { return node_address(node).mac; }

}  // namespace

std::string exec_usage() {
  return "usage: rnicsim exec [CONFIG.json] [--set key=value]... [--pcap FILE] -- "
         "SERVER-COMMAND [::: CLIENT-COMMAND]\n"
         "  Runs unmodified verbs programs on the simulated testbed: the server command on\n"
         "  roles.server's node, the client command on roles.client's. In the commands,\n"
         "  {port} is a free loopback port and {server} the loopback address; --pcap\n"
         "  writes every frame of the wires to FILE as rnicsim perf's does. E.g.\n"
         "    rnicsim exec -- ibv_rc_pingpong -g 0 -p {port} ::: ibv_rc_pingpong -g 0 -p {port} "
         "{server}\n";
}

ExecOptions parse_exec_options(const std::vector<std::string>& args) {
  ExecOptions options;
  std::size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") break;
    if (arg == "--help" || arg == "-h") {
      options.help = true;
      return options;
    }
    if (arg == "--set") {
      if (i + 1 == args.size()) usage("--set needs key=value");
      options.sets.push_back(args[++i]);
    } else if (arg == "--pcap") {
      if (i + 1 == args.size() || args[i + 1].empty() || args[i + 1] == "--") {
        usage("--pcap needs the file to write");
      }
      options.pcap_path = args[++i];
    } else if (!arg.empty() && arg[0] == '-') {
      usage("exec: unknown option " + arg);
    } else if (options.config.empty()) {
      options.config = arg;
    } else {
      usage("exec: more than one CONFIG given: " + options.config + ", " + arg);
    }
  }
  if (i == args.size()) usage("exec needs -- and the server's command");
  std::vector<std::string>* into = &options.server;
  for (++i; i < args.size(); ++i) {
    if (args[i] == ":::") {
      if (into == &options.client) usage("exec: more than one ::: (two programs at most)");
      into = &options.client;
      continue;
    }
    into->push_back(args[i]);
  }
  if (options.server.empty()) usage("exec: the server's command is empty");
  if (into == &options.client && options.client.empty())
    usage("exec: the client's command is empty");
  return options;
}

int exec_command(const ExecOptions& options, std::ostream& err) {
  std::vector<std::string> overrides = options.sets;
  overrides.push_back("experiment=perf");
  config::LoadedConfig loaded = config::load_config(options.config, overrides, rnicsim_schema());
  config::RunConfig run(std::move(loaded));
  run.at("experiment");
  run.at("seed");
  const config::Section output = run.section("output");
  output.boolean("plot");
  TestbedRequest request;
  request.host_software = true;
  request.verbs = true;
  const TestbedConfig c = testbed_config(run, request);
  const PerfEnds ends = perf_ends(run, c.topology);
  run.require_all_read("perf");

  warn_if_tsc_untrapped(err);
  Testbed testbed("testbed", c);
  // As perf's: every wire (or, switched, every MAC) tapped before the run.
  std::unique_ptr<WireCapture> capture;
  if (options.pcap_path) {
    try {
      capture = std::make_unique<WireCapture>(*options.pcap_path);
    } catch (const packet::PcapError& e) {
      throw config::ConfigError("--pcap " + *options.pcap_path, "", e.reason());
    }
    if (testbed.switched()) {
      for (MacPort* mac : testbed.fabric_macs()) capture->tap(*mac);
    } else {
      for (std::size_t i = 0; i < testbed.node_count(); ++i) capture->tap(testbed.wire_to(i));
    }
  }
  const bridge::MacOfGid mac_of_gid =
      [&testbed](
          const std::array<std::uint8_t, 16>& gid) -> std::optional<std::array<std::uint8_t, 6>> {
    for (std::size_t i = 0; i < testbed.node_count(); ++i) {
      if (node_gid(i) == gid) return mac_bytes(i);
    }
    return std::nullopt;
  };
  const auto identity = [&](std::size_t node) {
    bridge::DeviceIdentity id;
    id.node_name = c.topology.nodes[node];
    id.device_name = "rnicsim_" + id.node_name;
    const std::array<std::uint8_t, 6> mac = mac_bytes(node);
    // EUI-64 from the MAC, as a RoCE NIC's node GUID.
    id.node_guid = (std::uint64_t{mac[0] ^ 2u} << 56) | (std::uint64_t{mac[1]} << 48) |
                   (std::uint64_t{mac[2]} << 40) | (0xFFFEULL << 24) |
                   (std::uint64_t{mac[3]} << 16) | (std::uint64_t{mac[4]} << 8) | mac[5];
    id.gid = node_gid(node);
    id.link_gbps = static_cast<std::uint32_t>(c.link.gbps);
    id.max_qp = 1 << 16;
    id.max_mr = 1 << 16;
    return id;
  };

  const std::uint32_t port = free_port();
  std::vector<App> apps(options.client.empty() ? 1 : 2);
  apps[0].role = "server";
  apps[0].command = substituted(options.server, port);
  std::vector<std::unique_ptr<bridge::AppSession>> sessions;
  sessions.push_back(std::make_unique<bridge::AppSession>(
      "server_app", testbed.node(ends.server).host, identity(ends.server), mac_of_gid));
  apps[0].session = sessions.back().get();
  if (apps.size() == 2) {
    apps[1].role = "client";
    apps[1].command = substituted(options.client, port);
    sessions.push_back(std::make_unique<bridge::AppSession>(
        "client_app", testbed.node(ends.client).host, identity(ends.client), mac_of_gid));
    apps[1].session = sessions.back().get();
  }
  signal(SIGPIPE, SIG_IGN);
  Launcher launcher(apps, err);
  if (!launcher.run()) return 1;
  for (const App& app : apps) {
    if (app.status != 0) {
      err << "rnicsim exec: the " << app.role << " (" << app.command.front() << ") exited with "
          << app.status << "\n";
      return app.status;  // the capture of a failed run is not kept
    }
  }
  if (capture) {
    try {
      capture->commit();
    } catch (const packet::PcapError& e) {
      err << "rnicsim exec: " << e.path() << ": " << e.reason() << "\n";
      return 1;
    }
  }
  return 0;
}

}  // namespace rnicsim::exec
