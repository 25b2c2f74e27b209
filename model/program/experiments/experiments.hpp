#pragma once
// The experiments rnicsim runs and the schema of every key they accept.
#include <filesystem>
#include <iosfwd>
#include <stdexcept>
#include <string>

#include "config/config.hpp"
#include "config/run_config.hpp"
#include "program/experiments/perf/perf_options.hpp"

namespace rnicsim {

// Every key of every block, declared once by the block that reads it.
const config::Schema& rnicsim_schema();

struct RunRequest {
  config::LoadedConfig config;       // configuration config::load_config checked
  std::filesystem::path folder;      // where outputs go (exists, empty)
  std::ostream* terminal = nullptr;  // where to show progress (a terminal); null: nowhere
  std::string banner;                // printed to the report once the configuration is read
  // The perf experiment's test plan (`rnicsim perf`); null for the others.
  const perf::PerfOptions* perf = nullptr;
};

// The simulated system failed (RunFailed) and the experiment wrote its
// results up to the failure, saying so: they are to be kept, and the run
// still ends as failed.
class RunFailedWithResults : public std::runtime_error {
 public:
  explicit RunFailedWithResults(const std::string& reason) : std::runtime_error(reason) {}
};

// Runs the experiment the configuration names, writes its outputs into
// request.folder (effective_config.json first: the values the run's blocks
// read, node by node) and prints a short report to `report`. Throws
// config::ConfigError, before simulating, for a key the configuration gives
// that no block of the experiment reads. Throws
// SimulatedTimeExceeded for a run that needs more simulated time than SystemC
// can count, and Interrupted when the user stops it. A perf run whose
// simulated system fails writes its outputs and throws RunFailedWithResults;
// the other experiments' failures throw RunFailed and write nothing more.
void run_experiment(const RunRequest& request, std::ostream& report);

}  // namespace rnicsim
