#pragma once
// Testbed: the nodes of an experiment and the cables between them, built
// from config (structure only).
//
//   two nodes:  a.nic.mac_tx --wire a_to_b--> b.nic.icrc_rx
//               b.nic.mac_tx --wire b_to_a--> a.nic.icrc_rx
//   one node:   a.nic.mac_tx --wire loopback--> a.nic.icrc_rx (a loopback cable)
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
#include "wire/wire_link.hpp"
#include "system/node.hpp"

namespace rnicsim {

struct TestbedConfig {
  std::vector<std::string> node_names;  // one or two
  std::vector<NodeConfig> nodes;
  WireLinkConfig link;
  std::vector<FaultConfig> faults;  // faults[i]: on the frames node i sends
  // Set for the seed figure on the testbed (the pipeline experiment's
  // "testbed" composition): the wires carry the experiment's bare Data with
  // this framing, and no NIC receives them: the experiment reads each wire's
  // receive buffer, and the NICs' receive sides stay idle.
  std::optional<WireFraming> bare_data;
};

// The nodes' sections (nodes.<name>.<section>, else <section>, faults
// included) and the link section.
TestbedConfig testbed_config(config::RunConfig& run, const std::vector<std::string>& node_names,
                             std::optional<std::uint32_t> mtt_cache_entries = std::nullopt);
// The same for a testbed whose wires carry an experiment's bare Data
// (TestbedConfig::bare_data, set by the caller): the faults sections are not
// read, so a fault key is refused as read by no block (the cable faults act
// on RoCE frames that RC recovers; bare Data have no transport).
TestbedConfig bare_data_testbed_config(config::RunConfig& run,
                                       const std::vector<std::string>& node_names);

// Gives every node's NIC its plain Ethernet port (each node's "ethernet"
// section), for experiments that run the kernel network stack.
void add_ethernet_ports(config::RunConfig& run, TestbedConfig& config);

class Testbed : public sc_core::sc_module {
 public:
  Testbed(const sc_core::sc_module_name& name, const TestbedConfig& config);

  Node& node(std::size_t index) { return *nodes_.at(index); }
  const Node& node(std::size_t index) const { return *nodes_.at(index); }
  std::size_t node_count() const { return nodes_.size(); }
  // The wire into node `index`'s NIC.
  WireLink& wire_to(std::size_t index) { return *wires_.at(index); }
  const WireLink& wire_to(std::size_t index) const { return *wires_.at(index); }

 private:
  std::vector<std::unique_ptr<Node>> nodes_;
  std::vector<std::unique_ptr<WireLink>> wires_;  // wires_[i] ends at node i
  std::vector<std::unique_ptr<ReceiveBuffer>> idle_receive_;  // with bare_data: the NICs' inputs
};

// Node `index`'s addresses: MAC 02:00:00:00:00:<index+1>, IPv4 192.168.0.<index+1>,
// and its GID (the IPv4-mapped address).
NicAddress node_address(std::size_t index);
std::array<std::uint8_t, 16> node_gid(std::size_t index);

}  // namespace rnicsim
