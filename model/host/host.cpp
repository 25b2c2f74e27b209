#include "host/host.hpp"

#include "host_memory/host_memory_config.hpp"

namespace rnicsim {
namespace {

std::uint64_t page_pool_base(const HostConfig& config) {
  return page_pool_base(config.icm, config.page_bytes);
}

}  // namespace

std::uint64_t page_pool_base(const IcmLayout& icm, std::uint64_t page_bytes) {
  return (icm.end() + page_bytes - 1) / page_bytes * page_bytes;
}

HostConfig host_config(config::RunConfig& run, const std::string& node, const IcmLayout& icm) {
  const config::Section host = run.node_section(node, "host");
  HostConfig c;
  c.memory = host_memory_config(host);
  c.pcie = pcie::pcie_config(run.node_section(node, "pcie"));
  c.icm = icm;
  return c;
}

void read_host_software_config(config::RunConfig& run, const std::string& node, HostConfig& c) {
  const config::Section host = run.node_section(node, "host");
  c.page_bytes = host_page_bytes(host);
  c.fragmentation = host.number("fragmentation");
  c.page_seed = host.stream_seed("pages");
}

HostSoftware::HostSoftware(HostMemory& memory, const HostConfig& config)
    : pages(page_pool_base(config),
            config.memory.size_bytes > page_pool_base(config)
                ? config.memory.size_bytes - page_pool_base(config)
                : 0,
            config.page_bytes, config.fragmentation, config.page_seed),
      process(pages, kApplicationVirtualBase),
      driver(memory, process, config.icm) {}

Host::Host(const sc_core::sc_module_name& name, const HostConfig& config)
    : sc_core::sc_module(name), memory("memory", config.memory), pcie("pcie", config.pcie),
      config_(config) {
  pcie.pcie2mem.bind(memory.socket);
}

HostSoftware& Host::software() {
  if (!software_) software_ = std::make_unique<HostSoftware>(memory, config_);
  return *software_;
}

}  // namespace rnicsim
