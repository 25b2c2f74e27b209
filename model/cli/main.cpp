// libsystemc owns main() and calls sc_main.
#include <csignal>
#include <iostream>
#include <string>
#include <systemc>
#include <vector>

#include "cli/cli.hpp"
#include "common/simulation.hpp"
#include "common/systemc_banner.hpp"

int sc_main(int argc, char* argv[]) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  const int status = rnicsim::run_cli(args, std::cout, std::cerr);
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
