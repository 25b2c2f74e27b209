#pragma once
#include "config/config.hpp"
#include "host_memory/host_memory.hpp"

namespace rnicsim {

void declare_host_memory_keys(config::Schema& schema);
HostMemoryConfig host_memory_config(const config::Json& doc);

}  // namespace rnicsim
