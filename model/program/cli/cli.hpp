#pragma once
// The rnicsim command line:
//   rnicsim run CONFIG.json [--out DIR] [--set key.path=value]...
//   rnicsim decode FILE.pcap   one JSON object per frame
//   rnicsim keys        print every configuration key as a Markdown table
//   rnicsim --help | --version
#include <iosfwd>
#include <string>
#include <vector>

namespace rnicsim {

// Exit codes: 0 success, 2 bad input (usage, configuration), 1 a failure
// inside the simulator.
constexpr int kExitOk = 0;
constexpr int kExitInternal = 1;
constexpr int kExitBadInput = 2;

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace rnicsim
