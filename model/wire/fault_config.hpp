#pragma once
// The `faults` section: one per node, for the frames that node sends
// (`faults.<key>` for every node, `nodes.<node>.faults.<key>` for one).
#include "config/config.hpp"
#include "config/run_config.hpp"
#include "wire/fault_injector.hpp"

namespace rnicsim {

void declare_fault_keys(config::Schema& schema);
// From a node's "faults" section; the generator's seed is the section's stream.
FaultConfig fault_config(const config::Section& faults);

}  // namespace rnicsim
