#include "common/simulation.hpp"

#include <csignal>
#include <string>

namespace rnicsim {
namespace {

volatile std::sig_atomic_t g_stop_signal = 0;

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

}  // namespace

SimulatedTimeExceeded::SimulatedTimeExceeded()
    : std::runtime_error(
          "the run needs 2^63 ps (about 106.7 days) of simulated time or more, the most rnicsim "
          "counts (half of SystemC's 64-bit picosecond clock); it was stopped there rather than "
          "report numbers computed past that range: fewer items, shorter latencies or "
          "intervals, or faster rates") {}

Interrupted::Interrupted(int signal_number)
    : std::runtime_error("interrupted by " + signal_name(signal_number)),
      signal_number_(signal_number) {}

void request_stop(int signal_number) { g_stop_signal = signal_number; }

int stop_requested() { return g_stop_signal; }

void throw_if_stop_requested() {
  if (const int signal_number = stop_requested()) throw Interrupted(signal_number);
}

void simulate() {
  // Exit on starvation: the clock stays at the last event, so a run that
  // finished and a run cut off at the limit can be told apart.
  sc_core::sc_start(kMaxSimulatedTime, sc_core::SC_EXIT_ON_STARVATION);
  throw_if_stop_requested();
  if (sc_core::sc_pending_activity()) throw SimulatedTimeExceeded();
}

}  // namespace rnicsim
