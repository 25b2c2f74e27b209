#include "host/memory/host_memory_config.hpp"

#include "common/time_units.hpp"

namespace rnicsim {

void declare_host_memory_keys(config::Schema& schema) {
  schema.add(config::integer_key("host.memory_bytes", 64ULL << 30, "bytes",
                                 "size of each host's physical address space")
                 .at_least(4096)
                 .at_most(4503599627370496.0));  // 2^52, x86-64's physical address limit
  schema.add(config::number_key("host.memory_latency_ns", 0, "ns",
                                "latency charged to every host-memory access (CPU or DMA)")
                 .at_least(0)
                 .at_most(1e9));  // 1 s
  schema.add(config::integer_key("host.page_bytes", 4096, "bytes",
                                 "page size of application buffers: 4 KiB, 2 MiB or 1 GiB")
                 .one_of_integers({4096, 2 << 20, 1 << 30}));
  schema.add(config::number_key("host.fragmentation", 1, "",
                                "how scattered free physical pages are: 0 = in address order "
                                "(consecutive pages contiguous), 1 = random order")
                 .at_least(0)
                 .at_most(1));
}

HostMemoryConfig host_memory_config(const config::Section& host) {
  HostMemoryConfig c;
  c.size_bytes = host.integer("memory_bytes");
  c.access_latency = nanoseconds(host.number("memory_latency_ns"));
  return c;
}

std::uint64_t host_page_bytes(const config::Section& host) {
  return host.integer("page_bytes");
}

}  // namespace rnicsim
