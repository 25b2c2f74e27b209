#pragma once
#include "common/stage_timing.hpp"
#include "config/config.hpp"
#include "config/run_config.hpp"

namespace rnicsim {

struct HostCpuConfig {
  StageTiming app_write;    // the application writing its data into a user buffer
  StageTiming kernel_copy;  // the socket path's user-to-kernel copy (Ethernet path only)
};

void declare_host_cpu_keys(config::Schema& schema);
// From a node's "host" section.
HostCpuConfig host_cpu_config(const config::Section& host);

}  // namespace rnicsim
