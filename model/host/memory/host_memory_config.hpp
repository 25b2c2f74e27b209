#pragma once
#include <cstdint>
#include <string>

#include "config/config.hpp"
#include "config/run_config.hpp"
#include "host/memory/host_memory.hpp"

namespace rnicsim {

void declare_host_memory_keys(config::Schema& schema);
// From a node's "host" section.
HostMemoryConfig host_memory_config(const config::Section& host);
// host.page_bytes: 4 KiB, 2 MiB or 1 GiB (the key's declaration checks it).
std::uint64_t host_page_bytes(const config::Section& host);

}  // namespace rnicsim
