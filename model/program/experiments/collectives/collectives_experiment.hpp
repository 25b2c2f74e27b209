#pragma once
// The collectives experiment (`rnicsim coll TEST`, or `rnicsim run` with
// "experiment": "collectives"): one rank on each of the topology's first
// collectives.ranks nodes, running the collectives section's test at each
// size over RDMA or the kernel TCP path, and checking every rank's result
// byte for byte after each size.
//
// An operation: every rank fills its input (rank r's element i is a fixed
// function of r and i) and posts the receives it can, then all start together
// (a barrier of the model's, which costs nothing) and run; the operation's
// time is from the start until the last rank returns. collectives.warmup
// operations go untimed, then collectives.iterations are timed. Each rank's
// CPU (its cores' work, spinning apart) is summed over the timed operations.
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>

#include "config/config.hpp"
#include "config/run_config.hpp"

namespace rnicsim {

void declare_collectives_experiment_keys(config::Schema& schema);

// Writes results.json (the rows, with each rank's CPU per operation),
// statistics.json and speed.json into `folder`, and prints the OSU (or
// nccl-tests) table to `report` as each size ends.
void run_collectives(config::RunConfig& run, const std::function<void()>& configured,
                     const std::filesystem::path& folder, std::ostream& report,
                     std::ostream* terminal);

}  // namespace rnicsim
