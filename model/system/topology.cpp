#include "system/topology.hpp"

#include <algorithm>
#include <stdexcept>

#include "system/fabric_topology.hpp"

namespace rnicsim {

std::size_t Topology::index_of(std::string_view name) const {
  const auto it = std::find(nodes.begin(), nodes.end(), name);
  if (it == nodes.end()) throw std::logic_error("no topology node " + std::string(name));
  return static_cast<std::size_t>(it - nodes.begin());
}

std::size_t Topology::peer_of(std::size_t index) const {
  for (const TopologyLink& link : links) {
    if (link.ends[0] == index) return link.ends[1];
    if (link.ends[1] == index) return link.ends[0];
  }
  throw std::logic_error("topology node " + nodes.at(index) + " has no cable");
}

const FabricCable& Topology::cable_of_node(std::size_t index) const {
  for (const FabricCable& cable : cables) {
    for (const CableEnd& end : cable.ends) {
      if (!end.is_switch && end.index == index) return cable;
    }
  }
  throw std::logic_error("topology node " + nodes.at(index) + " has no cable");
}

void declare_topology_keys(config::Schema& schema) {
  schema.add(config::string_list_key(
      "topology.nodes", config::Json::array({"a", "b"}),
      "the testbed's nodes (a host and its NIC each), in order: node i has MAC "
      "02:00:00:00:00:<i+1> and IPv4 192.168.0.<i+1>; names as in nodes.<node>"));
  schema.add(config::string_list_key(
      "topology.links", config::Json::array({"a-b"}),
      "the cables, each \"<node>-<node>\", full duplex at the link section's rate and delays; "
      "each node has one port, so one cable (a lone node's port is looped back)"));
  schema.add(config::string_list_key(
      "topology.switches", config::Json::array(),
      "the switches of a fabric; with any, each link joins a node or a switch port to a switch "
      "port, \"<end>-<end>[ <gbps>G][ <metres>m]\" (an end is a node, a switch, or "
      "\"<switch>:<port>\"; without a port a switch's next free one), routes are the shortest "
      "paths with ECMP over equal ones; names as in nodes.<switch>"));
  schema.add(config::string_list_key(
      "topology.routes", config::Json::array(),
      "routes in place of the shortest paths, each \"<switch> <node> <port>[,<port>...]\": the "
      "switch's ports toward the node (several: ECMP); checked for loops and for ports that do "
      "not lead to the node"));
  schema.add(config::string_key("topology.preset", "none",
                                "none: topology.nodes, switches and links as given; star: nodes "
                                "h1..h<topology.hosts> on switch s1; leaf_spine: "
                                "topology.leaves switches leaf1.. each with "
                                "topology.hosts_per_leaf nodes, every leaf linked to each of "
                                "topology.spines switches spine1..")
                 .one_of({"none", "star", "leaf_spine"}));
  schema.add(config::integer_key("topology.hosts", 8, "nodes", "star: its nodes")
                 .at_least(1)
                 .at_most(static_cast<double>(kMaxTopologyNodes)));
  schema.add(config::integer_key("topology.leaves", 2, "switches", "leaf_spine: leaf switches")
                 .at_least(1)
                 .at_most(128));
  schema.add(config::integer_key("topology.spines", 2, "switches", "leaf_spine: spine switches")
                 .at_least(1)
                 .at_most(128));
  schema.add(
      config::integer_key("topology.hosts_per_leaf", 4, "nodes", "leaf_spine: nodes per leaf")
          .at_least(1)
          .at_most(static_cast<double>(kMaxTopologyNodes)));
  schema.add(config::number_key("topology.ns_per_metre", 5, "ns",
                                "propagation per metre of a link given a length (\"10m\"), "
                                "instead of link.propagation_ns; about 5 in fibre and copper")
                 .greater_than(0)
                 .at_most(1000));
  schema.add(config::integer_key("switch.ports", 64, "ports",
                                 "a switch's ports: links name ports 0 to this minus one")
                 .at_least(1)
                 .at_most(1024));
  schema.add(config::string_key("roles.client", "a",
                                "perf: the node running perftest's client (posts the requests, "
                                "measures and prints)"));
  schema.add(config::string_key("roles.server", "b", "perf: the node running perftest's server"));
  schema.add(config::string_key("roles.subject", "a",
                                "dma, translation and pipeline: the node the experiment drives "
                                "(its PCIe link, DMA engine, MTT or data path)"));
}

namespace {

using topology_reading::listed;
using topology_reading::topology_error;

// Whether the file or a --set gave topology.<member>.
bool given(config::RunConfig& run, const std::string& member) {
  const config::Json& doc = run.loaded().given;
  const auto it = doc.find("topology");
  return it != doc.end() && it->is_object() && it->contains(member);
}

}  // namespace

Topology topology_config(config::RunConfig& run) {
  const config::Section section = run.section("topology");
  // The fabric's keys are read only when given, so that a back-to-back run's
  // effective_config.json keeps the bytes it had before switches existed.
  const std::string preset = given(run, "preset") ? section.text("preset") : "none";
  Topology t;
  topology_reading::Listed listed_by_preset;
  if (preset != "none") {
    for (const char* member : {"nodes", "links", "switches"}) {
      if (given(run, member)) {
        const std::string key = section.path(member);
        throw topology_error(run, key,
                             "topology.preset " + preset +
                                 " generates the nodes, switches and links; give either the "
                                 "preset or the lists");
      }
    }
    listed_by_preset = topology_reading::preset_lists(section, preset);
    if (listed_by_preset.nodes.size() > kMaxTopologyNodes) {
      throw topology_error(run, "topology.hosts_per_leaf",
                           "the preset makes " + std::to_string(listed_by_preset.nodes.size()) +
                               " nodes; a topology holds at most " +
                               std::to_string(kMaxTopologyNodes));
    }
  }
  t.nodes = preset != "none" ? listed_by_preset.nodes
                             : section.at("nodes").get<std::vector<std::string>>();
  if (preset != "none") {
    t.switches = listed_by_preset.switches;
  } else if (given(run, "switches")) {
    t.switches = section.at("switches").get<std::vector<std::string>>();
  }
  const std::string nodes_key = section.path("nodes");
  const std::string links_key = section.path("links");
  if (t.nodes.empty()) throw topology_error(run, nodes_key, "a testbed needs at least one node");
  for (std::size_t i = 0; i < t.nodes.size(); ++i) {
    if (!config::is_node_name(t.nodes[i])) {
      throw topology_error(run, nodes_key,
                           "a node name is a lower-case letter followed by lower-case letters, "
                           "digits or '_' (got \"" + t.nodes[i] + "\" at index " +
                               std::to_string(i) + ")");
    }
    // Results name a node's counters by its name beside the wires' ("link"),
    // and name each wire "<from>_to_<to>" (or "loopback"): a node may not
    // take a name those could be mistaken for.
    if (t.nodes[i] == "link" || t.nodes[i] == "loopback" ||
        t.nodes[i].find("_to_") != std::string::npos) {
      throw topology_error(run, nodes_key,
                           "node name \"" + t.nodes[i] +
                               "\" is reserved: \"link\" and \"loopback\" name the wires in "
                               "results, and a wire is \"<from>_to_<to>\", so no node name "
                               "contains \"_to_\"");
    }
    if (std::find(t.nodes.begin(), t.nodes.begin() + static_cast<std::ptrdiff_t>(i),
                  t.nodes[i]) != t.nodes.begin() + static_cast<std::ptrdiff_t>(i)) {
      throw topology_error(run, nodes_key, "node \"" + t.nodes[i] + "\" is listed twice");
    }
  }
  if (t.nodes.size() > kMaxTopologyNodes) {
    throw topology_error(run, preset == "star" ? section.path("hosts") : nodes_key,
                         std::to_string(t.nodes.size()) + " nodes; a topology holds at most " +
                             std::to_string(kMaxTopologyNodes) +
                             " (node i's IPv4 address is 192.168.0.<i+1>)");
  }
  const std::vector<std::string> link_texts =
      preset != "none" ? listed_by_preset.links
                       : section.at("links").get<std::vector<std::string>>();
  if (t.switched()) {
    topology_reading::read_fabric(run, section, link_texts, t);
    t.routes = shortest_path_routes(t);
    if (given(run, "routes")) topology_reading::read_routes(run, section, t);
    return t;
  }
  std::vector<std::size_t> cables(t.nodes.size(), 0);
  for (const std::string& text : link_texts) {
    const std::size_t dash = text.find('-');
    const std::string ends[2] = {text.substr(0, dash),
                                 dash == std::string::npos ? "" : text.substr(dash + 1)};
    if (dash == std::string::npos || ends[0].empty() || ends[1].empty()) {
      throw topology_error(run, links_key,
                           "a link is \"<node>-<node>\" (got \"" + text + "\")");
    }
    TopologyLink link;
    for (int e = 0; e < 2; ++e) {
      const auto it = std::find(t.nodes.begin(), t.nodes.end(), ends[e]);
      if (it == t.nodes.end()) {
        throw topology_error(run, links_key,
                             "\"" + text + "\" names node \"" + ends[e] +
                                 "\", which topology.nodes lacks (its nodes: " +
                                 listed(t.nodes) + ")");
      }
      link.ends[e] = static_cast<std::size_t>(it - t.nodes.begin());
    }
    if (link.ends[0] == link.ends[1]) {
      throw topology_error(run, links_key,
                           "\"" + text + "\" joins a node to itself; a lone node's port is "
                           "looped back without a link");
    }
    ++cables[link.ends[0]];
    ++cables[link.ends[1]];
    t.links.push_back(link);
  }
  for (std::size_t i = 0; i < t.nodes.size(); ++i) {
    const bool lone = t.nodes.size() == 1;
    if (!lone && cables[i] != 1) {
      throw topology_error(run, links_key,
                           "node \"" + t.nodes[i] + "\" has " + std::to_string(cables[i]) +
                               " cables; each node has one port, so one cable");
    }
  }
  if (t.nodes.size() == 1) t.links.push_back(TopologyLink{{0, 0}});
  return t;
}

std::size_t role_node(config::RunConfig& run, const Topology& topology, std::string_view role) {
  const config::Section roles = run.section("roles");
  const std::string name = roles.text(role);
  const auto it = std::find(topology.nodes.begin(), topology.nodes.end(), name);
  if (it == topology.nodes.end()) {
    const std::string key = roles.path(role);
    throw topology_error(run, key,
                         "names node \"" + name + "\", which topology.nodes lacks (its nodes: " +
                             listed(topology.nodes) + ")");
  }
  return static_cast<std::size_t>(it - topology.nodes.begin());
}

Topology lone_node(const std::string& name) {
  Topology t;
  t.nodes = {name};
  t.links = {TopologyLink{{0, 0}}};
  return t;
}

}  // namespace rnicsim
