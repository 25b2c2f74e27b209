#pragma once
// Testbed: the nodes of an experiment and the cables between them, built
// from config (structure only; topology.hpp gives the shape).
//
//   a cable a-b:  a.nic.mac_tx --wire a_to_b--> b.nic.icrc_rx
//                 b.nic.mac_tx --wire b_to_a--> a.nic.icrc_rx
//   a lone node:  a.nic.mac_tx --wire loopback--> a.nic.icrc_rx (a loopback cable)
//
// The wires carry the NIC's real RoCEv2 frames ("roce" framing: FCS, padding,
// preamble and gap added) and never wait for the receiver: a frame that finds
// the receive buffer (link.rx_buffer_bytes) full is dropped and counted, a
// loss like any other that RC retransmission recovers. Each wire has the
// faults of its sending node's "faults" section (wire/fault_injector.hpp).
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <systemc>
#include <vector>

#include "config/run_config.hpp"
#include "nic/ethernet/fabric_port.hpp"
#include "switch/switch.hpp"
#include "switch/switch_config.hpp"
#include "system/node.hpp"
#include "system/topology.hpp"
#include "wire/wire_link.hpp"

namespace rnicsim {

struct TestbedConfig {
  Topology topology;  // the nodes built and their cables
  std::vector<NodeConfig> nodes;  // nodes[i]: topology.nodes[i]'s
  WireLinkConfig link;
  std::vector<FaultConfig> faults;  // faults[i]: on the frames node i sends
  // Set for the seed figure on the testbed (the pipeline experiment's
  // "testbed" composition): the wires carry the experiment's bare Data with
  // this framing, and no NIC receives them: the experiment reads each wire's
  // receive buffer, and the NICs' receive sides stay idle.
  std::optional<WireFraming> bare_data;
  // A switched topology's: each switch's sections, and each node's port
  // (its pfc and qos sections, and link.rx_buffer_bytes).
  std::vector<SwitchConfig> switches;
  std::vector<FabricPortConfig> node_ports;
};

// What an experiment needs of its nodes beyond their hardware (host memory,
// PCIe, NIC), so that a key no block of it reads stays refused.
struct TestbedRequest {
  // Set: only the node this role names (roles.<role>) is built, its port
  // looped back: the one-node experiments (dma, translation).
  std::optional<std::string> alone_role;
  bool host_software = false;  // applications' pages (host.page_bytes, host.fragmentation)
  bool verbs = false;          // the verbs driver's CPU costs (verbs section)
  bool kernel_stack = false;   // the plain Ethernet port and kernel stack (ethernet, kernel)
  // False for bare Data (TestbedConfig::bare_data): the faults sections are
  // not read, so a fault key is refused as read by no block (the cable
  // faults act on RoCE frames that RC recovers; bare Data have no transport).
  bool faults = true;
  // The translation sweep's MTT cache size (translation_test.cache_entries).
  std::optional<std::uint32_t> mtt_cache_entries;
};

// The one builder: the topology and roles sections, then every node's
// sections (nodes.<name>.<section>, else <section>), what `request` asks for
// included, and the link section.
TestbedConfig testbed_config(config::RunConfig& run, const TestbedRequest& request = {});

class Testbed : public sc_core::sc_module {
 public:
  Testbed(const sc_core::sc_module_name& name, const TestbedConfig& config);

  Node& node(std::size_t index) { return *nodes_.at(index); }
  const Node& node(std::size_t index) const { return *nodes_.at(index); }
  std::size_t node_count() const { return nodes_.size(); }
  // The wire into node `index`'s NIC (back to back only).
  WireLink& wire_to(std::size_t index) { return *wires_.at(index); }
  const WireLink& wire_to(std::size_t index) const { return *wires_.at(index); }
  bool switched() const { return !switches_.empty(); }
  // A switched topology's: node `index`'s port, and the switches.
  FabricPort& port_of(std::size_t index) { return *ports_.at(index); }
  const FabricPort& port_of(std::size_t index) const { return *ports_.at(index); }
  Switch& switch_at(std::size_t index) { return *switches_.at(index); }
  const Switch& switch_at(std::size_t index) const { return *switches_.at(index); }
  std::size_t switch_count() const { return switches_.size(); }
  // Every MAC of the fabric, nodes' and switches' ports (a capture taps them all).
  std::vector<MacPort*> fabric_macs();

  // Every block's statistics (common/statistics.hpp), what statistics.json
  // holds: {"nodes": {"<node>": {"<block>": {"<name>": value}}}, "wires": {"<wire>": {...}}}.
  nlohmann::json statistics() const;
  // One node's, and one wire's (its frames, faults and receive buffer). On a
  // switched topology a node's entry holds its port too ("mac", "rx",
  // "priority_<p>"), and "switches" replaces "wires".
  nlohmann::json node_statistics(std::size_t index) const;
  static nlohmann::json wire_statistics(const WireLink& wire);

 private:
  std::vector<std::unique_ptr<Node>> nodes_;
  std::vector<std::unique_ptr<WireLink>> wires_;  // wires_[i] ends at node i (its one port)
  std::vector<std::unique_ptr<ReceiveBuffer>> idle_receive_;  // with bare_data: the NICs' inputs
  std::vector<std::unique_ptr<FabricPort>> ports_;            // switched: ports_[i] is node i's
  std::vector<std::unique_ptr<Switch>> switches_;

  void build_fabric(const TestbedConfig& config);
};

// The real blocks the seed figure's stages composition builds on its own,
// outside a testbed (its host memory and its wire), read as the builder
// reads a node's and the link's: node `node`'s host section, the link section
// with its framing (link.framing, which only this composition reads).
struct StageViewBlocks {
  HostMemoryConfig memory;
  WireLinkConfig link;
  WireFraming::Kind framing = WireFraming::Kind::kNone;
};
StageViewBlocks stage_view_blocks_config(config::RunConfig& run, const std::string& node);

// Node `index`'s addresses: MAC 02:00:00:00:00:<index+1>, IPv4 192.168.0.<index+1>,
// and its GID (the IPv4-mapped address).
NicAddress node_address(std::size_t index);
std::array<std::uint8_t, 16> node_gid(std::size_t index);

}  // namespace rnicsim
