#include "system/node.hpp"

#include "nic/translation/translation_config.hpp"

namespace rnicsim {

NodeConfig node_config(config::RunConfig& run, const std::string& node,
                       std::optional<std::uint32_t> mtt_cache_entries) {
  NodeConfig c;
  const IcmLayout icm = icm_layout(run.node_section(node, "translation"), kIcmBase);
  c.host = host_config(run, node, icm);
  c.nic = nic_config(run, node, c.host.pcie, kIcmBase, mtt_cache_entries);
  c.host.port = nic_port_attributes(c.nic);
  return c;
}

std::uint64_t node_page_pool_base(std::uint64_t mpt_entries, std::uint64_t mtt_entries,
                                  std::uint64_t page_bytes) {
  return page_pool_base(icm_layout(mpt_entries, mtt_entries, kIcmBase), page_bytes);
}

Node::Node(const sc_core::sc_module_name& name, const NodeConfig& config)
    : sc_core::sc_module(name), host("host", config.host), nic("nic", config.nic) {
  nic.request_splitter.split2pcie.bind(host.pcie.nic2pcie);
  host.pcie.pcie2nic.bind(nic.registers.pcie2nic);
}

}  // namespace rnicsim
