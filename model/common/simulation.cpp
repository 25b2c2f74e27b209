#include "common/simulation.hpp"

#include <csignal>
#include <string>
#include <vector>

#include "common/time_units.hpp"

#if defined(__SANITIZE_ADDRESS__)
#include <pthread.h>
#include <sanitizer/common_interface_defs.h>
#endif

namespace rnicsim {
namespace {

volatile std::sig_atomic_t g_stop_signal = 0;

// Workload parts still running in the current simulate_workload(); the run
// pauses when the last one finishes.
std::size_t g_parts_running = 0;
std::size_t g_parts = 0;

// Why the run failed, if it did (fail_run); the first reason wins.
std::string g_failure;


// libsystemc 2.3.4 tells AddressSanitizer about its coroutine switches, but
// when it switches back to the main thread it announces the main coroutine's
// stack as empty (it never knew its bounds). ASan then believes the main
// thread has no stack: at the next throw it cannot clean its stale stack
// poison and reports false stack overflows (google/sanitizers#189). Announce
// the real main stack again once the kernel has returned.
void restore_main_stack_for_sanitizer() {
#if defined(__SANITIZE_ADDRESS__)
  pthread_attr_t attributes;
  if (pthread_getattr_np(pthread_self(), &attributes) != 0) return;
  void* bottom = nullptr;
  std::size_t size = 0;
  pthread_attr_getstack(&attributes, &bottom, &size);
  pthread_attr_destroy(&attributes);
  __sanitizer_start_switch_fiber(nullptr, bottom, size);
  __sanitizer_finish_switch_fiber(nullptr, nullptr, nullptr);
#endif
}

std::string signal_name(int signal_number) {
  switch (signal_number) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    default:
      return "signal " + std::to_string(signal_number);
  }
}

void kill_threads_below(const std::vector<sc_core::sc_object*>& objects,
                        const sc_core::sc_process_handle& reaper) {
  for (sc_core::sc_object* object : objects) {
    sc_core::sc_process_handle process(object);  // kill() is not const
    if (process.valid() && process != reaper && !process.terminated()) process.kill();
    kill_threads_below(object->get_child_objects(), reaper);
  }
}

// A run cut short leaves its threads suspended mid-item, holding what they
// were working on; SystemC never unwinds them by itself. Kill them from a
// process (the only place kill() may be called), so their stacks unwind and
// everything they held is freed, then let that one delta run.
void unwind_every_thread() {
  sc_core::sc_spawn_options as_method;
  as_method.spawn_method();
  sc_core::sc_spawn(
      [] {
        kill_threads_below(sc_core::sc_get_top_level_objects(),
                           sc_core::sc_get_current_process_handle());
      },
      "rnicsim_reaper", &as_method);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  restore_main_stack_for_sanitizer();
}

// A failed run is unwound and reported as RunFailed.
void throw_if_failed() {
  if (g_failure.empty()) return;
  const std::string reason = g_failure;
  g_failure.clear();
  unwind_every_thread();
  throw RunFailed(reason);
}

}  // namespace

SimulatedTimeExceeded::SimulatedTimeExceeded()
    : std::runtime_error(
          "the run needs 2^63 ps (about 106.7 days) of simulated time or more, the most rnicsim "
          "counts (half of SystemC's 64-bit picosecond clock); it was stopped there rather than "
          "report numbers computed past that range: fewer items, shorter latencies or "
          "intervals, or faster rates") {}

WorkloadStalled::WorkloadStalled(std::size_t finished, std::size_t parts)
    : std::runtime_error("the model ran out of events with its workload unfinished (" +
                         std::to_string(finished) + " of " + std::to_string(parts) +
                         " parts done): it waits for what will not come (a peer whose QP failed, a loss on "
                         "a QP with timeout 0) or the model deadlocked") {}

Interrupted::Interrupted(int signal_number)
    : std::runtime_error("interrupted by " + signal_name(signal_number)),
      signal_number_(signal_number) {}

void request_stop(int signal_number) { g_stop_signal = signal_number; }

int stop_requested() { return g_stop_signal; }

void throw_if_stop_requested() {
  if (const int signal_number = stop_requested()) throw Interrupted(signal_number);
}

void fail_run(const std::string& reason) {
  if (g_failure.empty()) g_failure = reason.empty() ? "the run failed" : reason;
  sc_core::sc_pause();
}

void finish_workload() {
  if (g_parts_running == 0) return;  // not in simulate_workload(): nothing waits for it
  if (--g_parts_running == 0) sc_core::sc_pause();
}

void simulate_workload(std::size_t parts) {
  g_parts = parts;
  g_parts_running = parts;
  const sc_core::sc_time now = sim_now();
  sc_core::sc_start(now < kMaxSimulatedTime ? kMaxSimulatedTime - now : sc_core::SC_ZERO_TIME,
                    sc_core::SC_EXIT_ON_STARVATION);
  restore_main_stack_for_sanitizer();
  const std::size_t unfinished = g_parts_running;
  g_parts_running = 0;
  throw_if_failed();
  if (stop_requested() != 0) {
    unwind_every_thread();
    throw_if_stop_requested();
  }
  if (unfinished == 0) {
    // Done: whatever is still scheduled (timers, idle loops) is cancelled.
    unwind_every_thread();
    return;
  }
  const bool starved = !sc_core::sc_pending_activity();
  unwind_every_thread();
  if (starved) throw WorkloadStalled(g_parts - unfinished, g_parts);
  throw SimulatedTimeExceeded();
}

void simulate() {
  // Exit on starvation: the clock stays at the last event, so a run that
  // finished and a run cut off at the limit can be told apart.
  const sc_core::sc_time now = sim_now();
  sc_core::sc_start(now < kMaxSimulatedTime ? kMaxSimulatedTime - now : sc_core::SC_ZERO_TIME,
                    sc_core::SC_EXIT_ON_STARVATION);
  restore_main_stack_for_sanitizer();
  throw_if_failed();
  const bool interrupted = stop_requested() != 0;
  if (!interrupted && !sc_core::sc_pending_activity()) return;
  unwind_every_thread();
  throw_if_stop_requested();
  throw SimulatedTimeExceeded();
}

}  // namespace rnicsim
