#include "system/testbed.hpp"

#include <stdexcept>

#include "common/statistics.hpp"
#include "common/time_units.hpp"
#include "host/kernel/kernel_config.hpp"
#include "host/memory/host_memory_config.hpp"
#include "nic/congestion/congestion_statistics.hpp"
#include "nic/ethernet/ethernet_config.hpp"
#include "wire/fault_config.hpp"
#include "wire/link_config.hpp"
#include "wire/pfc.hpp"

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
  if (c.topology.switched()) {
    for (std::size_t i = 0; i < c.faults.size(); ++i) {
      if (!c.faults[i].any()) continue;
      const std::string key = "nodes." + c.topology.nodes[i] + ".faults";
      throw config::ConfigError(run.loaded().file, key,
                                "cable faults act on a back-to-back cable; a switched topology "
                                "has none yet (its losses come from its buffers)");
    }
    std::vector<std::size_t> cabled(c.topology.switches.size(), 0);
    for (const FabricCable& cable : c.topology.cables) {
      for (const CableEnd& end : cable.ends) {
        if (end.is_switch) ++cabled[end.index];
      }
    }
    for (std::size_t s = 0; s < c.topology.switches.size(); ++s) {
      const std::string& name = c.topology.switches[s];
      c.switches.push_back(switch_config(run, name));
      const std::string error =
          BufferManager::shared_pool_error(c.switches.back().buffer, cabled[s]);
      if (!error.empty()) {
        const std::string key = run.node_section(name, "switch").path("buffer_bytes");
        throw config::ConfigError(run.loaded().source_of(key), key,
                                  "switch " + name + ": " + error);
      }
    }
    for (std::size_t i = 0; i < c.topology.nodes.size(); ++i) {
      const std::string& name = c.topology.nodes[i];
      const FabricCable& cable = c.topology.cable_of_node(i);
      FabricPortConfig port;
      port.mac.gbps = cable.gbps;
      port.mac.propagation = nanoseconds(cable.propagation_ns);
      port.mac.pfc = pfc_config(run.node_section(name, "pfc"));
      port.mac.address = c.nodes[i].nic.address.mac;
      port.dscp_classes = qos_dscp_classes(run.node_section(name, "qos"));
      c.nodes[i].nic.transport.ecn = qos_ecn(run.node_section(name, "qos"));
      c.nodes[i].nic.transport.dscp_classes = port.dscp_classes;
      c.nodes[i].nic.transport.dcqcn = dcqcn_config(run.node_section(name, "dcqcn"), cable.gbps);
      port.queue_frames = c.nodes[i].nic.queue_items;
      port.rx_buffer_bytes = c.link.rx_buffer_bytes;
      c.node_ports.push_back(port);
    }
  }
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
  if (config.topology.switched()) {
    build_fabric(config);
    return;
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

void Testbed::build_fabric(const TestbedConfig& config) {
  const Topology& t = config.topology;
  for (std::size_t i = 0; i < t.nodes.size(); ++i) {
    ports_.push_back(std::make_unique<FabricPort>((t.nodes[i] + "_port").c_str(),
                                                  config.node_ports[i], nodes_[i]->nic.mac_tx));
    nodes_[i]->nic.connect_wire(ports_[i]->rx);
    TransportShared& transport = nodes_[i]->nic.transport;
    ports_[i]->set_hold_handler(
        [&transport](std::uint8_t held) { transport.set_held_priorities(held); });
    NotificationPoint& np = nodes_[i]->nic.notification_point;
    if (np.enabled()) {
      ports_[i]->mac.add_tap([&np](const Transfer& frame, const sc_core::sc_time& first_bit) {
        np.frame_sent(frame, first_bit);
      });
    }
  }
  // Each switch port's cable, and the MAC its frames are addressed to.
  std::vector<std::vector<SwitchPortSpec>> specs(t.switches.size());
  for (std::size_t s = 0; s < t.switches.size(); ++s) specs[s].resize(t.switch_ports[s]);
  for (const FabricCable& cable : t.cables) {
    for (int e = 0; e < 2; ++e) {
      const CableEnd& mine = cable.ends[e];
      const CableEnd& other = cable.ends[1 - e];
      if (!mine.is_switch) continue;
      SwitchPortSpec& spec = specs[mine.index][mine.port];
      spec.cabled = true;
      spec.gbps = cable.gbps;
      spec.propagation = nanoseconds(cable.propagation_ns);
      spec.neighbour = other.is_switch ? Switch::port_address(other.index, other.port)
                                       : node_address(other.index).mac;
    }
  }
  for (std::size_t s = 0; s < t.switches.size(); ++s) {
    RouteTable routes(config.switches[s].seed);
    const auto& by_node = t.routes[s];
    for (std::size_t node = 0; node < by_node.size(); ++node) {
      std::vector<std::uint16_t> ports(by_node[node].begin(), by_node[node].end());
      if (!ports.empty()) routes.add(node_address(node).ipv4, std::move(ports));
    }
    switches_.push_back(std::make_unique<Switch>(t.switches[s].c_str(), config.switches[s],
                                                 specs[s], std::move(routes), s));
  }
  const auto mac_of = [this](const CableEnd& end) -> MacPort& {
    return end.is_switch ? switches_[end.index]->port(end.port) : ports_[end.index]->mac;
  };
  for (const FabricCable& cable : t.cables) {
    mac_of(cable.ends[0]).connect(mac_of(cable.ends[1]));
    mac_of(cable.ends[1]).connect(mac_of(cable.ends[0]));
  }
}

std::vector<MacPort*> Testbed::fabric_macs() {
  std::vector<MacPort*> macs;
  for (auto& port : ports_) macs.push_back(&port->mac);
  for (auto& sw : switches_) {
    for (std::size_t p = 0; p < sw->port_count(); ++p) macs.push_back(&sw->port(p));
  }
  return macs;
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
  if (!ports_.empty()) {
    const FabricPort& port = *ports_.at(index);
    add(mac_port_statistics(), port.mac.stats());
    add(receive_buffer_statistics(), port.rx.stats());
    add(fabric_port_statistics(), port.stats());
    if (node.nic.notification_point.enabled()) {
      add(notification_point_statistics(), node.nic.notification_point.stats());
      add(reaction_point_statistics(), node.nic.transport.rate_limiters().stats());
    }
    for (unsigned p = 0; p < packet::kPfcPriorities; ++p) {
      out["priority_" + std::to_string(p)] =
          mac_priority_statistics().values(port.mac.priority_stats(p));
    }
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
  if (!switches_.empty()) {
    nlohmann::json switches = nlohmann::json::object();
    for (const auto& sw : switches_) switches[sw->basename()] = sw->statistics();
    return {{"nodes", nodes}, {"switches", switches}};
  }
  nlohmann::json wires = nlohmann::json::object();
  for (const auto& wire : wires_) wires[wire->basename()] = wire_statistics(*wire);
  return {{"nodes", nodes}, {"wires", wires}};
}

}  // namespace rnicsim
