#pragma once
// Node: a host and its NIC, joined by the host's PCIe link (structure only).
//
//   nic.request_split.split2pcie --> host.pcie.nic2pcie
//   host.driver deregistration --> nic.translation.invalidate
//
// A testbed builds its nodes from config: node "a" reads
// nodes.a.<section>.<key>, else <section>.<key> (configs/README.md).
#include <cstdint>
#include <optional>
#include <string>
#include <systemc>

#include "config/run_config.hpp"
#include "host/host.hpp"
#include "nic/nic.hpp"

namespace rnicsim {

struct NodeConfig {
  HostConfig host;
  NicConfig nic;
};

// The hardware of node `node` (its host memory, PCIe and NIC). Experiments
// that register memory also call read_host_software_config on `.host`.
NodeConfig node_config(config::RunConfig& run, const std::string& node,
                       std::optional<std::uint32_t> mtt_cache_entries = std::nullopt);

class Node : public sc_core::sc_module {
 public:
  Node(const sc_core::sc_module_name& name, const NodeConfig& config);

  Host host;
  Nic nic;

  // The host's software, with the driver's deregistrations reaching the
  // NIC's caches (a firmware command in hardware; free of time for now).
  HostSoftware& software();

 private:
  bool software_connected_ = false;
};

}  // namespace rnicsim
