#pragma once
// The configuration keys of everything a testbed is built of: every node
// section's blocks, the link, the faults, the topology and the roles. The
// program adds its experiments' own keys (program/experiments/experiments.cpp)
// and never needs the blocks' headers to do so.
#include "config/config.hpp"

namespace rnicsim {

void declare_testbed_keys(config::Schema& schema);

}  // namespace rnicsim
