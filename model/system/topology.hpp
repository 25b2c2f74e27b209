#pragma once
// Topology and roles: which nodes a testbed has, the cables between them, and
// which node plays which part in an experiment, all from config.
//
//   topology.nodes  ["a", "b"]   the nodes, in order (node i's addresses: node_address(i))
//   topology.links  ["a-b"]      the cables, "<node>-<node>", full duplex
//   roles.client / roles.server  perf's two ends
//   roles.subject                the node the dma, translation and pipeline experiments drive
//
//   topology.switches ["s1"]     switches (a fabric); links then join a node or a
//                                switch port to a switch port: "a-s1", "s1:3-s2:0",
//                                optionally with their own rate and length,
//                                "s1-s2 400G 10m"
//   topology.routes  ["s1 b 3"]  a switch's ports toward a node, in place of the
//                                shortest paths ("s1 b 3,4": an ECMP group)
//   topology.preset              "star" or "leaf_spine": the nodes, switches and
//                                links generated (topology.hosts, leaves, spines)
//
// Every node has one port, so one cable; a lone node's port is looped back.
// Without switches two nodes face each other on one cable (back to back).
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "config/run_config.hpp"

namespace rnicsim {

// One cable between topology nodes `ends[0]` and `ends[1]` (indices into the node list).
struct TopologyLink {
  std::size_t ends[2] = {0, 0};
};

// One end of a fabric cable: a node's port (switch false, port 0) or a switch's.
struct CableEnd {
  bool is_switch = false;
  std::size_t index = 0;  // into nodes or switches
  std::size_t port = 0;
};

// A cable of a switched topology, full duplex, with its own rate and delay.
struct FabricCable {
  CableEnd ends[2];
  double gbps = 0;
  double propagation_ns = 0;  // cable plus both ends' PHYs
};

// Hosts a topology may hold: node i's addresses end in i + 1 (192.168.0.<i+1>).
inline constexpr std::size_t kMaxTopologyNodes = 254;
inline constexpr std::size_t kMaxSwitches = 256;

struct Topology {
  std::vector<std::string> nodes;
  std::vector<TopologyLink> links;  // back to back only (no switches)
  std::vector<std::string> switches;
  std::vector<std::size_t> switch_ports;  // each switch's port count
  std::vector<FabricCable> cables;        // with switches: every cable
  // routes[s][n]: switch s's ports toward node n (an ECMP group when more
  // than one): the shortest paths, with topology.routes' entries in their place.
  std::vector<std::vector<std::vector<std::size_t>>> routes;

  bool switched() const { return !switches.empty(); }

  // The index of node `name`; std::logic_error if there is none.
  // (Switch names are not nodes.)
  std::size_t index_of(std::string_view name) const;
  // The node at the other end of node `index`'s cable (itself for a loopback);
  // back to back only.
  std::size_t peer_of(std::size_t index) const;
  // The cable of node `index` on a switched topology.
  const FabricCable& cable_of_node(std::size_t index) const;
};

void declare_topology_keys(config::Schema& schema);

// The topology section, checked: node names valid and distinct, every link
// naming listed nodes and free ports, every node on exactly one cable, a
// switched topology connected. Throws config::ConfigError naming the key.
Topology topology_config(config::RunConfig& run);

// Every switch's routes, [switch][node]: the switch's ports on a shortest
// path toward the node (more than one: an ECMP group). Every hop gets one
// step closer, so the routes have no loop.
std::vector<std::vector<std::vector<std::size_t>>> shortest_path_routes(const Topology& topology);

// The index of the node roles.<role> names. Throws config::ConfigError naming
// the key when the topology lacks it.
std::size_t role_node(config::RunConfig& run, const Topology& topology, std::string_view role);

// A topology of node `name` alone, its port looped back: what the one-node
// experiments build of the configured topology.
Topology lone_node(const std::string& name);

}  // namespace rnicsim
