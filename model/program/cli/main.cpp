// libsystemc owns main() and calls sc_main.
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <systemc>
#include <vector>

#include "program/cli/cli.hpp"
#include "common/simulation.hpp"
#include "common/systemc_banner.hpp"
#include "program/sweep/point_runner.hpp"

namespace {

// A sweep runs each point as its own process and asks it, through this
// variable, for its peak resident memory (VmHWM: this program's own, unlike
// the parent's wait4 figure, which counts what a spawned child inherits).
void report_peak_memory() {
  const char* file = std::getenv(rnicsim::sweep::kPeakMemoryVariable);
  if (file == nullptr) return;
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) {
      std::ofstream(file) << std::stoull(line.substr(6)) * 1024 << "\n";
      return;
    }
  }
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  const int status = rnicsim::run_cli(args, std::cout, std::cerr);
  report_peak_memory();
  // A run stopped by SIGINT or SIGTERM has cleaned up; it now ends by that
  // signal, so that a shell or a script running it knows it was stopped (a
  // loop of runs stops at Ctrl-C).
  if (const int signal_number = rnicsim::stop_requested()) {
    std::cout.flush();
    std::signal(signal_number, SIG_DFL);
    std::raise(signal_number);
  }
  return status;
}
