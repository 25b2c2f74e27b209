#pragma once
// Node: a host and its NIC, joined by the host's PCIe link (structure only).
//
//   nic.request_splitter.split2pcie --> host.pcie.nic2pcie
//   host.pcie.pcie2nic --> nic.registers.pcie2nic (MMIO: doorbells, driver commands, Ethernet port)
//
// The driver reaches the NIC over PCIe only: a deregistration is a command
// (host/driver/README.md). A node whose host has no verbs config (the translation
// experiment) never deregisters (its driver would refuse to, having no NIC
// to tell), so nothing else joins the driver to the NIC.
//
// A testbed builds its nodes from config: node "a" reads
// nodes.a.<section>.<key>, else <section>.<key> (configs/README.md).
#include <cstdint>
#include <optional>
#include <string>
#include <systemc>

#include "config/run_config.hpp"
#include "host/host.hpp"
#include "host/kernel/kernel_config.hpp"
#include "nic/nic.hpp"

namespace rnicsim {

struct NodeConfig {
  HostConfig host;
  NicConfig nic;
  // Set when the experiment runs the kernel network stack on the node's
  // Ethernet port (TestbedRequest::kernel_stack).
  std::optional<KernelConfig> kernel;
};

// The hardware of node `node` (its host memory, PCIe and NIC); testbed_config
// adds the software an experiment asks for.
NodeConfig node_config(config::RunConfig& run, const std::string& node,
                       std::optional<std::uint32_t> mtt_cache_entries = std::nullopt);

// Where a node's host places the applications' pages: after the NIC's
// tables (`mpt_entries` and `mtt_entries` entries from kIcmBase), on a
// `page_bytes` boundary. For rules that check a working set fits in memory.
std::uint64_t node_page_pool_base(std::uint64_t mpt_entries, std::uint64_t mtt_entries,
                                  std::uint64_t page_bytes);

class Node : public sc_core::sc_module {
 public:
  Node(const sc_core::sc_module_name& name, const NodeConfig& config);

  Host host;
  Nic nic;

  HostSoftware& software() { return host.software(); }
};

}  // namespace rnicsim
