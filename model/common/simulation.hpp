#pragma once
// Running an elaborated model to its end, within what SystemC can count.
//
// SystemC keeps simulated time as a 64-bit count of picoseconds (rnicsim's
// resolution), about 213 days. A run may use the first half of that range,
// kMaxSimulatedTime (2^63 ps, about 106.7 days; what is due exactly then does
// not run). Every single duration a
// block derives from its configuration stays below kMaxDuration (2^62 ps):
// the keys are bounded so that it does, and the conversions in time_units.hpp
// check it. So no time stamp the kernel computes can pass 2^64 ps and wrap,
// and a run that still has work pending at the limit stops with
// SimulatedTimeExceeded instead of reporting numbers computed past it.
//
// A run also stops early when the user interrupts it (SIGINT, SIGTERM): the
// signal handler only records the request; RunProgress::advance(), which the
// experiments call for every item they complete, then pauses the kernel, and
// simulate() throws Interrupted. A run cut short, either way, first has its
// threads unwound, so nothing they held is left behind.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <systemc>

namespace rnicsim {

inline const sc_core::sc_time kMaxSimulatedTime = sc_core::sc_time::from_value(1ULL << 63);
constexpr std::uint64_t kMaxDurationPs = 1ULL << 62;

// The run needs more simulated time than kMaxSimulatedTime.
class SimulatedTimeExceeded : public std::runtime_error {
 public:
  SimulatedTimeExceeded();
};

// The user asked the run to stop (SIGINT or SIGTERM).
class Interrupted : public std::runtime_error {
 public:
  explicit Interrupted(int signal_number);
  int signal_number() const { return signal_number_; }

 private:
  int signal_number_;
};

// Async-signal-safe: records that the run should stop because of `signal_number`.
void request_stop(int signal_number);
// The signal that asked the run to stop, or 0.
int stop_requested();
// Throws Interrupted if a stop was requested; for the steps around the simulation.
void throw_if_stop_requested();

// The model ran out of events before its workload finished: the workload
// waits for what will not come (a peer whose QP failed, a loss on a QP with
// timeout 0), or a deadlock. A run never ends by starvation unnoticed.
class WorkloadStalled : public std::runtime_error {
 public:
  WorkloadStalled(std::size_t finished, std::size_t parts);
};

// The simulated system met a condition the run cannot go on from (a
// completion in error, a Data dropped on a path that has no recovery): the
// run stops loudly rather than hang or report wrong numbers.
class RunFailed : public std::runtime_error {
 public:
  explicit RunFailed(const std::string& reason) : std::runtime_error(reason) {}
};

// Called from a process: stops the run; simulate() and simulate_workload()
// then throw RunFailed with the first reason given.
void fail_run(const std::string& reason);

// sc_start()s the elaborated model until nothing is left to do. Throws
// Interrupted when a stop was requested, SimulatedTimeExceeded when work is
// still pending at kMaxSimulatedTime. For block tests and models that end by
// themselves.
void simulate();

// Called by a part of the workload (a path, a load generator, a perftest
// loop) when its last item is done; from a process.
void finish_workload();
// Runs the model until all `parts` of its workload have called
// finish_workload(), then ends the run at once: timers still pending (an RC
// retransmission timer, a periodic tick) are cancelled and the threads
// unwound. Throws WorkloadStalled when the model runs out of events first,
// Interrupted and SimulatedTimeExceeded as simulate() does.
void simulate_workload(std::size_t parts);

}  // namespace rnicsim
