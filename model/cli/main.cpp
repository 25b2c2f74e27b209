// libsystemc owns main() and calls sc_main.
#include <cstdlib>
#include <iostream>
#include <string>
#include <systemc>
#include <vector>

#include "cli/cli.hpp"

namespace {
// libsystemc prints its banner from main() unless this is set; a static
// initializer runs before main(), so rnicsim's output starts with its own words.
const bool kBannerOff = setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0) == 0;
}  // namespace

int sc_main(int argc, char* argv[]) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  return rnicsim::run_cli(args, std::cout, std::cerr);
}
