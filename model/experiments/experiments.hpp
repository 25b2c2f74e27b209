#pragma once
// The experiments rnicsim runs and the schema of every key they accept.
#include <filesystem>
#include <iosfwd>
#include <string>

#include "config/config.hpp"

namespace rnicsim {

// Every key of every block, declared once by the block that reads it.
const config::Schema& rnicsim_schema();

struct RunRequest {
  config::Json effective;            // configuration config::load checked
  std::filesystem::path folder;      // where outputs go (exists, empty)
  std::ostream* terminal = nullptr;  // where to show progress (a terminal); null: nowhere
};

// Runs the experiment the configuration names, writes its outputs into
// request.folder and prints a short report to `report`. Throws
// SimulatedTimeExceeded for a run that needs more simulated time than SystemC
// can count, and Interrupted when the user stops it.
void run_experiment(const RunRequest& request, std::ostream& report);

}  // namespace rnicsim
