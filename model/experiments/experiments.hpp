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
};

// Runs the experiment the configuration names, writes its outputs into
// request.folder and prints a short report to `report`.
void run_experiment(const RunRequest& request, std::ostream& report);

}  // namespace rnicsim
