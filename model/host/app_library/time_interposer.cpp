// Simulated time for an attached application (README: simulated time).
//
// Every way a program reads the time returns its simulated clock: the C
// library's time calls are interposed here (this library is preloaded, so
// the program's calls reach these first), and the TSC is trapped (prctl
// PR_SET_TSC with PR_TSC_SIGSEGV: RDTSC and RDTSCP then fault, and the
// handler answers them). glibc's vDSO reads the TSC itself, so the time
// calls must all be interposed before the trap is set; the trap is per
// thread, so every thread the program creates sets it first. The TSC ticks
// at the rate /proc/cpuinfo reports, which perftest checks against its own
// sample of it. Each read costs the reader a little simulated time, so a
// program that spins on the clock sees it advance without asking the
// simulator. Sleeping is a wait in simulated time. Some hosts accept the
// prctl and never fault (a Firecracker VM on AMD EPYC): RDTSC then reads
// the host's TSC; rnicsim exec checks the host once and says so
// (program/exec/exec_command.cpp), and the time calls stay simulated.
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "host/app_library/app_bridge_client.hpp"

namespace {

using rnicsim::app::advance_ps;
using rnicsim::app::attached;
using rnicsim::app::kTimeCallPs;
using rnicsim::app::kTscReadPs;

std::uint64_t realtime_epoch_ns = 0;
double tsc_mhz = 1000.0;
bool trapping = false;

// The rate the launcher read from /proc/cpuinfo ("cpu MHz", as perftest
// reads it), once for every program it starts.
double launcher_tsc_mhz() {
  double mhz = 0;
  const char* given = std::getenv("RNICSIM_TSC_MHZ");
  return given != nullptr && std::sscanf(given, "%lf", &mhz) == 1 && mhz > 0 ? mhz : 1000.0;
}

std::uint64_t tsc_at(std::uint64_t ps) {
  // ps * MHz / 1e6, without overflow for any run SystemC can simulate.
  __extension__ typedef unsigned __int128 Wide;
  return static_cast<std::uint64_t>(static_cast<Wide>(ps) *
                                    static_cast<std::uint64_t>(tsc_mhz * 1000.0) / 1000000000ULL);
}

void fill(timespec* ts, std::uint64_t ns) {
  ts->tv_sec = static_cast<time_t>(ns / 1000000000ULL);
  ts->tv_nsec = static_cast<long>(ns % 1000000000ULL);
}

// RDTSC is 0F 31, RDTSCP 0F 01 F9: answer with the clock, step over it.
void on_segv(int signal_number, siginfo_t* info, void* context) {
  auto* uc = static_cast<ucontext_t*>(context);
  greg_t* regs = uc->uc_mcontext.gregs;
  const auto* ip = reinterpret_cast<const unsigned char*>(regs[REG_RIP]);
  int length = 0;
  // A fault on fetching the instruction itself is no RDTSC: not read here.
  const bool fetch_fault = static_cast<const void*>(ip) == info->si_addr;
  if (!fetch_fault && ip[0] == 0x0F && ip[1] == 0x31) length = 2;
  if (!fetch_fault && ip[0] == 0x0F && ip[1] == 0x01 && ip[2] == 0xF9) length = 3;
  if (length == 0) {
    // The spin watch's protected pages (spin_watch.cpp), else a real fault:
    // let it kill the process as it would have.
    if (rnicsim::app::spin_watch_fault(info->si_addr, context)) return;
    signal(signal_number, SIG_DFL);
    return;
  }
  const std::uint64_t tsc = tsc_at(advance_ps(kTscReadPs));
  regs[REG_RAX] = static_cast<greg_t>(tsc & 0xFFFFFFFFULL);
  regs[REG_RDX] = static_cast<greg_t>(tsc >> 32);
  if (length == 3) regs[REG_RCX] = 0;  // TSC_AUX: processor 0
  regs[REG_RIP] += length;
}

void trap_tsc_in_this_thread() {
  if (trapping) prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0);
}

__attribute__((constructor)) void start_simulated_time() {
  if (!attached()) return;  // not under rnicsim exec: the real clock
  realtime_epoch_ns = rnicsim::app::device().realtime_epoch_ns;
  tsc_mhz = launcher_tsc_mhz();
  // One SIGSEGV handler answers the TSC trap and the spin watch's pages.
  struct sigaction action {};
  action.sa_sigaction = on_segv;
  action.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  sigaction(SIGSEGV, &action, nullptr);
  rnicsim::app::start_spin_watch();
  // ASan's own SIGSEGV handling and the trap do not mix (README).
  if (std::getenv("RNICSIM_NO_TSC_TRAP") != nullptr) return;
  trapping = true;
  trap_tsc_in_this_thread();
}

struct ThreadStart {
  void* (*routine)(void*);
  void* argument;
};

void* start_trapped(void* raw) {
  const ThreadStart start = *static_cast<ThreadStart*>(raw);
  delete static_cast<ThreadStart*>(raw);
  trap_tsc_in_this_thread();
  return start.routine(start.argument);
}

template <class F>
F next_symbol(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

void sleep_for(std::uint64_t ns) {
  const rnicsim::bridge::Sleep sleep{ns * 1000};
  rnicsim::app::call(rnicsim::bridge::Request::kSleep, &sleep, sizeof sleep);
}

}  // namespace

extern "C" {

int clock_gettime(clockid_t clock, timespec* ts) noexcept {
  if (!attached()) {
    static auto real = next_symbol<int (*)(clockid_t, timespec*)>("clock_gettime");
    return real(clock, ts);
  }
  const std::uint64_t ns = advance_ps(kTimeCallPs) / 1000;
  switch (clock) {
    case CLOCK_REALTIME:
    case CLOCK_REALTIME_COARSE:
    case CLOCK_TAI:
      fill(ts, realtime_epoch_ns + ns);
      return 0;
    default:  // monotonic, boot and CPU-time clocks: simulated time itself
      fill(ts, ns);
      return 0;
  }
}

int gettimeofday(timeval* tv, void* tz) noexcept {
  if (!attached()) {
    static auto real = next_symbol<int (*)(timeval*, void*)>("gettimeofday");
    return real(tv, tz);
  }
  const std::uint64_t ns = realtime_epoch_ns + advance_ps(kTimeCallPs) / 1000;
  tv->tv_sec = static_cast<time_t>(ns / 1000000000ULL);
  tv->tv_usec = static_cast<suseconds_t>(ns % 1000000000ULL / 1000);
  return 0;
}

time_t time(time_t* out) noexcept {
  if (!attached()) {
    static auto real = next_symbol<time_t (*)(time_t*)>("time");
    return real(out);
  }
  const auto seconds =
      static_cast<time_t>((realtime_epoch_ns + advance_ps(kTimeCallPs) / 1000) / 1000000000ULL);
  if (out != nullptr) *out = seconds;
  return seconds;
}

int nanosleep(const timespec* request, timespec* remaining) {
  if (!attached()) {
    static auto real = next_symbol<int (*)(const timespec*, timespec*)>("nanosleep");
    return real(request, remaining);
  }
  if (request == nullptr || request->tv_nsec < 0 || request->tv_nsec >= 1000000000L ||
      request->tv_sec < 0) {
    errno = EINVAL;
    return -1;
  }
  sleep_for(static_cast<std::uint64_t>(request->tv_sec) * 1000000000ULL +
            static_cast<std::uint64_t>(request->tv_nsec));
  if (remaining != nullptr) fill(remaining, 0);
  return 0;
}

int usleep(useconds_t microseconds) {
  if (!attached()) {
    static auto real = next_symbol<int (*)(useconds_t)>("usleep");
    return real(microseconds);
  }
  sleep_for(static_cast<std::uint64_t>(microseconds) * 1000);
  return 0;
}

unsigned int sleep(unsigned int seconds) {
  if (!attached()) {
    static auto real = next_symbol<unsigned int (*)(unsigned int)>("sleep");
    return real(seconds);
  }
  sleep_for(static_cast<std::uint64_t>(seconds) * 1000000000ULL);
  return 0;
}

int pthread_create(pthread_t* thread, const pthread_attr_t* attributes, void* (*routine)(void*),
                   void* argument) noexcept {
  static auto real =
      next_symbol<int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*)>(
          "pthread_create");
  if (!trapping) return real(thread, attributes, routine, argument);
  auto* start = new ThreadStart{routine, argument};
  const int error = real(thread, attributes, start_trapped, start);
  if (error != 0) delete start;
  return error;
}

}  // extern "C"
