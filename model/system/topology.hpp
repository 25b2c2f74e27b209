#pragma once
// Topology and roles: which nodes a testbed has, the cables between them, and
// which node plays which part in an experiment, all from config.
//
//   topology.nodes  ["a", "b"]   the nodes, in order (node i's addresses: node_address(i))
//   topology.links  ["a-b"]      the cables, "<node>-<node>", full duplex
//   roles.client / roles.server  perf's two ends
//   roles.subject                the node the dma, translation and pipeline experiments drive
//
// Today every node has one port, so a cable joins two nodes and each node has
// exactly one cable; a lone node's port is looped back. The fabric adds
// switches as more names and more links of the same form.
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

struct Topology {
  std::vector<std::string> nodes;
  std::vector<TopologyLink> links;

  // The index of node `name`; std::logic_error if there is none.
  std::size_t index_of(std::string_view name) const;
  // The node at the other end of node `index`'s cable (itself for a loopback).
  std::size_t peer_of(std::size_t index) const;
};

void declare_topology_keys(config::Schema& schema);

// The topology section, checked: node names valid and distinct, every link
// naming two listed nodes, and every node on exactly one cable. Throws
// config::ConfigError naming topology.nodes or topology.links.
Topology topology_config(config::RunConfig& run);

// The index of the node roles.<role> names. Throws config::ConfigError naming
// the key when the topology lacks it.
std::size_t role_node(config::RunConfig& run, const Topology& topology, std::string_view role);

// A topology of node `name` alone, its port looped back: what the one-node
// experiments build of the configured topology.
Topology lone_node(const std::string& name);

}  // namespace rnicsim
