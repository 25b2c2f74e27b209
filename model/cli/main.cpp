// libsystemc owns main() and calls sc_main.
#include <iostream>
#include <string>
#include <systemc>
#include <vector>

#include "cli/cli.hpp"
#include "common/systemc_banner.hpp"

int sc_main(int argc, char* argv[]) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  return rnicsim::run_cli(args, std::cout, std::cerr);
}
