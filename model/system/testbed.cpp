#include "system/testbed.hpp"

#include "nic/ethernet/ethernet_config.hpp"

#include <stdexcept>

#include "common/statistics.hpp"
#include "common/time_units.hpp"
#include "host/kernel/kernel_config.hpp"
#include "host/memory/host_memory_config.hpp"
#include "wire/fault_config.hpp"
#include "wire/link_config.hpp"

namespace rnicsim {

TestbedConfig testbed_config(config::RunConfig& run, const TestbedRequest& request) {
  TestbedConfig c;
  c.topology = topology_config(run);
  if (request.alone_role) {
    const std::size_t subject = role_node(run, c.topology, *request.alone_role);
    c.topology = lone_node(c.topology.nodes[subject]);
  }
  for (std::size_t i = 0; i < c.topology.nodes.size(); ++i) {
    const std::string& name = c.topology.nodes[i];
    NodeConfig node = node_config(run, name, request.mtt_cache_entries);
    node.nic.address = node_address(i);
    if (request.host_software) read_host_software_config(run, name, node.host);
    if (request.verbs) read_verbs_config(run, name, node.host);
    if (request.kernel_stack) {
      node.nic.ethernet =
          ethernet_port_config(run.node_section(name, "ethernet"), node.nic.queue_items);
      node.kernel = kernel_config(run.node_section(name, "kernel"),
                                  static_cast<std::uint32_t>(node.nic.ethernet_mtu));
    }
    c.nodes.push_back(std::move(node));
    c.faults.push_back(request.faults ? fault_config(run.node_section(name, "faults"))
                                      : FaultConfig());
  }
  c.link = wire_link_config(run.section("link"));
  return c;
}

StageViewBlocks stage_view_blocks_config(config::RunConfig& run, const std::string& node) {
  const config::Section link = run.section("link");
  StageViewBlocks b;
  b.memory = host_memory_config(run.node_section(node, "host"));
  b.link = wire_link_config(link);
  b.framing = framing_kind(link);
  return b;
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
  const std::vector<std::string>& names = config.topology.nodes;
  const std::size_t count = names.size();
  for (std::size_t i = 0; i < count; ++i) {
    nodes_.push_back(std::make_unique<Node>(names[i].c_str(), config.nodes[i]));
  }
  wires_.resize(count);
  for (std::size_t to = 0; to < count; ++to) {
    // wires_[to] ends at node `to` and starts at its cable's other end.
    const std::size_t from = config.topology.peer_of(to);
    const std::string wire_name = from == to ? "loopback" : names[from] + "_to_" + names[to];
    wires_[to] = std::make_unique<WireLink>(
        wire_name.c_str(), config.link,
        config.bare_data ? *config.bare_data
                         : WireFraming(WireFraming::Kind::kFrame, roce_v2_write_only_ipv4()),
        config.faults.at(from));
  }
  for (std::size_t to = 0; to < count; ++to) {
    WireLink& wire = *wires_[to];
    wire.in(nodes_[config.topology.peer_of(to)]->nic.mac_tx);
    if (config.bare_data) {
      const std::string idle = names[to] + "_idle_receive";
      idle_receive_.push_back(std::make_unique<ReceiveBuffer>(idle.c_str(), 0));
      nodes_[to]->nic.connect_wire(*idle_receive_.back());
    } else {
      nodes_[to]->nic.connect_wire(wire.rx);
    }
  }
}

namespace {

// Merges `more` into `into` (a wire's entry is three blocks' counters).
void merge(nlohmann::json& into, const nlohmann::json& more) {
  for (const auto& item : more.items()) into[item.key()] = item.value();
}

}  // namespace

nlohmann::json Testbed::node_statistics(std::size_t index) const {
  const Node& node = *nodes_.at(index);
  nlohmann::json out = nlohmann::json::object();
  const auto add = [&out](const auto& table, const auto& stats) {
    out[table.block()] = table.values(stats);
  };
  add(host_memory_statistics(), node.host.memory.stats());
  add(pcie::pcie_link_statistics(), node.host.pcie.stats());
  out["pcie_upstream"] = pcie::link_direction_statistics().values(node.host.pcie.upstream_stats());
  out["pcie_downstream"] =
      pcie::link_direction_statistics().values(node.host.pcie.downstream_stats());
  add(dma_engine_statistics(), node.nic.dma_engine.stats());
  add(request_splitter_statistics(), node.nic.request_splitter.stats());
  add(translation_statistics(), node.nic.translation.stats());
  add(packet::icrc_check_statistics(), node.nic.icrc_rx.check_stats());
  add(transport_statistics(), node.nic.transport.stats());
  if (const EthernetPort* port = node.nic.ethernet_port()) {
    add(ethernet_port_statistics(), port->stats());
  }
  return out;
}

nlohmann::json Testbed::wire_statistics(const WireLink& wire) {
  nlohmann::json out = wire_stage_statistics().values(wire.stats());
  merge(out, fault_statistics().values(wire.faults() ? wire.faults()->stats() : FaultStats{}));
  merge(out, receive_buffer_statistics().values(wire.rx.stats()));
  return out;
}

nlohmann::json Testbed::statistics() const {
  nlohmann::json nodes = nlohmann::json::object();
  for (std::size_t i = 0; i < nodes_.size(); ++i) nodes[nodes_[i]->basename()] = node_statistics(i);
  nlohmann::json wires = nlohmann::json::object();
  for (const auto& wire : wires_) wires[wire->basename()] = wire_statistics(*wire);
  return {{"nodes", nodes}, {"wires", wires}};
}

}  // namespace rnicsim
