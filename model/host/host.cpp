#include "host/host.hpp"

#include <string>

#include "host/memory/host_memory_config.hpp"

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

void read_verbs_config(config::RunConfig& run, const std::string& node, HostConfig& c) {
  c.verbs = verbs_config(run.node_section(node, "verbs"));
}

void read_host_software_config(config::RunConfig& run, const std::string& node, HostConfig& c) {
  const config::Section host = run.node_section(node, "host");
  c.page_bytes = host_page_bytes(host);
  c.fragmentation = host.number("fragmentation");
  c.page_seed = host.stream_seed("pages");
  // Application pages come from what the NIC's tables (ICM) leave, from the
  // first whole page after them.
  const std::uint64_t pool_base = page_pool_base(c);
  if (c.memory.size_bytes < pool_base + c.page_bytes) {
    const std::string key = host.path("memory_bytes");
    throw config::ConfigError(
        run.loaded().source_of(key), key,
        std::to_string(c.memory.size_bytes) + " bytes hold no " + std::to_string(c.page_bytes) +
            "-byte page for applications: the NIC's tables and alignment take the first " +
            std::to_string(pool_base) + " bytes (at least " +
            std::to_string(pool_base + c.page_bytes) + ")");
  }
}

HostSoftware::HostSoftware(HostMemory& memory, const HostConfig& config)
    : pages(page_pool_base(config),
            config.memory.size_bytes > page_pool_base(config)
                ? config.memory.size_bytes - page_pool_base(config)
                : 0,
            config.page_bytes, config.fragmentation, config.page_seed),
      process(pages, kApplicationVirtualBase),
      driver(memory, process, config.icm, config.port) {}

Host::Host(const sc_core::sc_module_name& name, const HostConfig& config)
    : sc_core::sc_module(name),
      memory("memory", config.memory),
      pcie("pcie", config.pcie),
      interrupts("interrupts"),
      cpu2pcie("cpu2pcie"),
      config_(config) {
  pcie.pcie2mem.bind(interrupts.from_pcie);
  interrupts.to_memory.bind(memory.socket);
  cpu2pcie.bind(pcie.host2pcie);
}

void Host::mmio_write(std::uint64_t offset, const std::uint8_t* data, std::uint32_t length,
                      const sc_core::sc_time& after) {
  // A payload per write in progress: several threads of one host (an
  // application, the kernel's softirq and timers) may each be inside one at
  // once. Payloads are kept for reuse, so steady state allocates nothing.
  if (free_mmio_.empty()) {
    mmio_pool_.push_back(std::make_unique<tlm::tlm_generic_payload>());
    free_mmio_.push_back(mmio_pool_.back().get());
  }
  tlm::tlm_generic_payload& mmio_ = *free_mmio_.back();
  free_mmio_.pop_back();
  mmio_.set_command(tlm::TLM_WRITE_COMMAND);
  mmio_.set_address(offset);
  mmio_.set_data_ptr(const_cast<std::uint8_t*>(data));
  mmio_.set_data_length(length);
  mmio_.set_streaming_width(length);
  mmio_.set_byte_enable_ptr(nullptr);
  mmio_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time delay = after;  // the link waits it out, once
  cpu2pcie->b_transport(mmio_, delay);
  free_mmio_.push_back(&mmio_);
  if (!mmio_.is_response_ok()) SC_REPORT_ERROR(name(), "an MMIO write was refused");
}

HostSoftware& Host::software() {
  if (!software_) {
    software_ = std::make_unique<HostSoftware>(memory, config_);
    if (config_.verbs) {
      DriverPlatform platform;
      platform.mmio_write = [this](std::uint64_t offset, const std::uint8_t* data,
                                   std::uint32_t length, const sc_core::sc_time& cpu) {
        mmio_write(offset, data, length, cpu);
      };
      platform.pages = &software_->pages;
      platform.verbs = *config_.verbs;
      software_->driver.attach(platform);
    }
  }
  return *software_;
}

}  // namespace rnicsim
