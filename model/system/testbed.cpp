#include "system/testbed.hpp"

#include "nic/ethernet/ethernet_config.hpp"

#include <stdexcept>

#include "common/time_units.hpp"
#include "wire/fault_config.hpp"
#include "wire/link_config.hpp"

namespace rnicsim {

namespace {

TestbedConfig nodes_and_link(config::RunConfig& run, const std::vector<std::string>& node_names,
                             std::optional<std::uint32_t> mtt_cache_entries, bool read_faults) {
  if (node_names.empty() || node_names.size() > 2) {
    throw std::logic_error("a testbed has one or two nodes");
  }
  TestbedConfig c;
  c.node_names = node_names;
  for (std::size_t i = 0; i < node_names.size(); ++i) {
    c.nodes.push_back(node_config(run, node_names[i], mtt_cache_entries));
    c.nodes.back().nic.address = node_address(i);
    c.faults.push_back(read_faults ? fault_config(run.node_section(node_names[i], "faults"))
                                   : FaultConfig());
  }
  c.link = wire_link_config(run.section("link"));
  return c;
}

}  // namespace

TestbedConfig testbed_config(config::RunConfig& run, const std::vector<std::string>& node_names,
                             std::optional<std::uint32_t> mtt_cache_entries) {
  return nodes_and_link(run, node_names, mtt_cache_entries, true);
}

TestbedConfig bare_data_testbed_config(config::RunConfig& run,
                                       const std::vector<std::string>& node_names) {
  return nodes_and_link(run, node_names, std::nullopt, false);
}

void add_ethernet_ports(config::RunConfig& run, TestbedConfig& config) {
  for (std::size_t i = 0; i < config.nodes.size(); ++i) {
    NicConfig& nic = config.nodes[i].nic;
    nic.ethernet = ethernet_port_config(run.node_section(config.node_names[i], "ethernet"),
                                        nic.queue_items);
  }
}

NicAddress node_address(std::size_t index) {
  NicAddress a;
  a.mac = {0x02, 0, 0, 0, 0, static_cast<std::uint8_t>(index + 1)};
  a.ipv4 = 0xC0A80000u | static_cast<std::uint32_t>(index + 1);  // 192.168.0.<index + 1>
  return a;
}

std::array<std::uint8_t, 16> node_gid(std::size_t index) {
  const NicAddress a = node_address(index);
  std::array<std::uint8_t, 16> gid{};
  gid[10] = gid[11] = 0xFF;  // IPv4-mapped (::ffff:a.b.c.d), as RoCEv2 GIDs of IPv4 ports are
  for (int i = 0; i < 4; ++i) gid[12 + i] = static_cast<std::uint8_t>(a.ipv4 >> (24 - 8 * i));
  return gid;
}

Testbed::Testbed(const sc_core::sc_module_name& name, const TestbedConfig& config)
    : sc_core::sc_module(name) {
  const std::size_t count = config.nodes.size();
  for (std::size_t i = 0; i < count; ++i) {
    nodes_.push_back(std::make_unique<Node>(config.node_names[i].c_str(), config.nodes[i]));
  }
  for (std::size_t i = 0; i < count; ++i) {
    // wires_[i] ends at node i and starts at the other node (itself when alone).
    const std::size_t from = count == 1 ? i : 1 - i;
    const std::string wire_name =
        count == 1 ? "loopback" : config.node_names[from] + "_to_" + config.node_names[i];
    wires_.push_back(std::make_unique<WireLink>(
        wire_name.c_str(), config.link,
        config.bare_data ? *config.bare_data
                         : WireFraming(WireFraming::Kind::kFrame, roce_v2_write_only_ipv4()),
        config.faults.at(from)));
  }
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t from = count == 1 ? i : 1 - i;
    WireLink& wire = *wires_[i];
    wire.in(nodes_[from]->nic.mac_tx);
    if (config.bare_data) {
      const std::string idle = config.node_names[i] + "_idle_receive";
      idle_receive_.push_back(std::make_unique<ReceiveBuffer>(idle.c_str(), 0));
      nodes_[i]->nic.connect_wire(*idle_receive_.back());
    } else {
      nodes_[i]->nic.connect_wire(wire.rx);
    }
  }
}

}  // namespace rnicsim
