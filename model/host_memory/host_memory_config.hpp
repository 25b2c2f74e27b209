#pragma once
#include <cstdint>
#include <string>

#include "config/config.hpp"
#include "host_memory/host_memory.hpp"

namespace rnicsim {

void declare_host_memory_keys(config::Schema& schema);
HostMemoryConfig host_memory_config(const config::Json& doc);
// host.page_bytes: 4 KiB, 2 MiB or 1 GiB (the key's declaration checks it).
std::uint64_t host_page_bytes(const config::Json& doc);

}  // namespace rnicsim
