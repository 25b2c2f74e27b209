#include "system/topology.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <functional>
#include <sstream>
#include <stdexcept>

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

config::ConfigError topology_error(config::RunConfig& run, const std::string& key,
                                   const std::string& reason) {
  return config::ConfigError(run.loaded().source_of(key), key, reason);
}

std::string listed(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& n : names) text += (text.empty() ? "" : ", ") + n;
  return text.empty() ? "none" : text;
}

}  // namespace

namespace {

// The preset's nodes, switches and links, as a user would have listed them.
struct Listed {
  std::vector<std::string> nodes, switches, links;
};

Listed preset_lists(const config::Section& section, const std::string& preset) {
  Listed l;
  const auto count = [&](const char* key) {
    return static_cast<std::size_t>(section.integer(key));
  };
  if (preset == "star") {
    l.switches = {"s1"};
    for (std::size_t h = 1; h <= count("hosts"); ++h) {
      l.nodes.push_back("h" + std::to_string(h));
      l.links.push_back(l.nodes.back() + "-s1");
    }
    return l;
  }
  const std::size_t leaves = count("leaves"), spines = count("spines"),
                    per = count("hosts_per_leaf");
  for (std::size_t f = 1; f <= leaves; ++f) l.switches.push_back("leaf" + std::to_string(f));
  for (std::size_t s = 1; s <= spines; ++s) l.switches.push_back("spine" + std::to_string(s));
  for (std::size_t f = 1; f <= leaves; ++f) {
    for (std::size_t h = 1; h <= per; ++h) {
      l.nodes.push_back("h" + std::to_string(l.nodes.size() + 1));
      l.links.push_back(l.nodes.back() + "-leaf" + std::to_string(f));
    }
  }
  for (std::size_t f = 1; f <= leaves; ++f) {
    for (std::size_t s = 1; s <= spines; ++s) {
      l.links.push_back("leaf" + std::to_string(f) + "-spine" + std::to_string(s));
    }
  }
  return l;
}

// Whether the file or a --set gave topology.<member>.
bool given(config::RunConfig& run, const std::string& member) {
  const config::Json& doc = run.loaded().given;
  const auto it = doc.find("topology");
  return it != doc.end() && it->is_object() && it->contains(member);
}

// "<name>" or "<name>:<port>" -> the end it names, its port still unset
// when none is given (SIZE_MAX).
CableEnd parse_end(config::RunConfig& run, const std::string& key, const std::string& text,
                   const std::string& end, const Topology& t) {
  const std::size_t colon = end.find(':');
  const std::string name = end.substr(0, colon);
  CableEnd e;
  e.port = SIZE_MAX;
  const auto node = std::find(t.nodes.begin(), t.nodes.end(), name);
  const auto sw = std::find(t.switches.begin(), t.switches.end(), name);
  if (node != t.nodes.end()) {
    e.index = static_cast<std::size_t>(node - t.nodes.begin());
    if (colon != std::string::npos) {
      throw topology_error(run, key,
                           "\"" + text + "\" names port \"" + end +
                               "\" of a node; a node has one port, named by the node alone");
    }
    e.port = 0;
    return e;
  }
  if (sw == t.switches.end()) {
    throw topology_error(run, key,
                         "\"" + text + "\" names \"" + name +
                             "\", which is neither a node nor a switch (nodes: " + listed(t.nodes) +
                             "; switches: " + listed(t.switches) + ")");
  }
  e.is_switch = true;
  e.index = static_cast<std::size_t>(sw - t.switches.begin());
  if (colon != std::string::npos) {
    const std::string digits = end.substr(colon + 1);
    if (digits.empty() || digits.size() > 6 ||
        digits.find_first_not_of("0123456789") != std::string::npos) {
      throw topology_error(run, key,
                           "\"" + text + "\": a switch port is a number (got \"" + digits + "\")");
    }
    e.port = std::stoul(digits);
    if (e.port >= t.switch_ports[e.index]) {
      throw topology_error(run, key,
                           "\"" + text + "\" names port " + std::to_string(e.port) +
                               " of switch \"" + name + "\", which has ports 0 to " +
                               std::to_string(t.switch_ports[e.index] - 1) + " (switch.ports)");
    }
  }
  return e;
}

// A link's options after its ends: "<gbps>G" and "<metres>m".
void parse_link_options(config::RunConfig& run, const std::string& key, const std::string& text,
                        std::istringstream& options, double ns_per_metre, FabricCable& cable) {
  std::string option;
  while (options >> option) {
    const char unit = option.back();
    const std::string number = option.substr(0, option.size() - 1);
    char* end = nullptr;
    const double value = std::strtod(number.c_str(), &end);
    const bool numeric = !number.empty() && end == number.c_str() + number.size() &&
                         std::isfinite(value) && value > 0;
    if (numeric && unit == 'G' && value <= 1000000) {
      cable.gbps = value;
    } else if (numeric && unit == 'm' && value <= 1e6) {
      cable.propagation_ns = value * ns_per_metre;
    } else {
      throw topology_error(run, key,
                           "\"" + text +
                               "\": a link option is a rate \"<gbps>G\" (up to "
                               "1000000) or a length \"<metres>m\" (up to 1000000), got \"" +
                               option + "\"");
    }
  }
}

// The switches' ports, the cables and their checks: each port used once,
// each node on one cable, every cable with a switch end, all connected.
void read_fabric(config::RunConfig& run, const config::Section& section,
                 const std::vector<std::string>& link_texts, Topology& t) {
  const std::string switches_key = section.path("switches");
  const std::string links_key = section.path("links");
  if (t.switches.size() > kMaxSwitches) {
    throw topology_error(run, switches_key,
                         std::to_string(t.switches.size()) +
                             " switches; a topology holds at most " + std::to_string(kMaxSwitches));
  }
  for (std::size_t i = 0; i < t.switches.size(); ++i) {
    const std::string& name = t.switches[i];
    if (!config::is_node_name(name) || name == "link" || name == "loopback") {
      throw topology_error(run, switches_key,
                           "a switch name is a lower-case letter followed by lower-case letters, "
                           "digits or '_', not \"link\" or \"loopback\" (got \"" +
                               name + "\")");
    }
    if (std::find(t.nodes.begin(), t.nodes.end(), name) != t.nodes.end() ||
        std::find(t.switches.begin(), t.switches.begin() + static_cast<std::ptrdiff_t>(i), name) !=
            t.switches.begin() + static_cast<std::ptrdiff_t>(i)) {
      throw topology_error(run, switches_key, "\"" + name + "\" is named twice");
    }
    t.switch_ports.push_back(run.node_section(name, "switch").integer("ports"));
  }
  const config::Section link = run.section("link");
  const double default_gbps = link.number("gbps");
  const double phy_ns = link.number("phy_latency_ns");
  const double default_propagation_ns = link.number("propagation_ns");
  const double ns_per_metre = section.number("ns_per_metre");
  std::vector<std::vector<bool>> used(t.switches.size());
  for (std::size_t s = 0; s < t.switches.size(); ++s) used[s].assign(t.switch_ports[s], false);
  std::vector<std::size_t> node_cables(t.nodes.size(), 0);
  for (const std::string& text : link_texts) {
    std::istringstream words(text);
    std::string pair;
    words >> pair;
    const std::size_t dash = pair.find('-');
    if (dash == std::string::npos || dash == 0 || dash + 1 == pair.size()) {
      throw topology_error(
          run, links_key, "a link is \"<end>-<end>[ <gbps>G][ <metres>m]\" (got \"" + text + "\")");
    }
    FabricCable cable;
    cable.gbps = default_gbps;
    cable.propagation_ns = default_propagation_ns;
    cable.ends[0] = parse_end(run, links_key, text, pair.substr(0, dash), t);
    cable.ends[1] = parse_end(run, links_key, text, pair.substr(dash + 1), t);
    parse_link_options(run, links_key, text, words, ns_per_metre, cable);
    cable.propagation_ns += phy_ns;
    if (!cable.ends[0].is_switch && !cable.ends[1].is_switch) {
      throw topology_error(run, links_key,
                           "\"" + text +
                               "\" joins two nodes; with switches every link has a "
                               "switch end");
    }
    for (CableEnd& end : cable.ends) {
      if (!end.is_switch) {
        ++node_cables[end.index];
        continue;
      }
      std::vector<bool>& ports = used[end.index];
      if (end.port == SIZE_MAX) {
        const auto free = std::find(ports.begin(), ports.end(), false);
        if (free == ports.end()) {
          throw topology_error(run, links_key,
                               "\"" + text + "\": switch \"" + t.switches[end.index] +
                                   "\" has no free port left (switch.ports " +
                                   std::to_string(ports.size()) + ")");
        }
        end.port = static_cast<std::size_t>(free - ports.begin());
      } else if (ports[end.port]) {
        throw topology_error(run, links_key,
                             "\"" + text + "\" uses port " + std::to_string(end.port) +
                                 " of switch \"" + t.switches[end.index] +
                                 "\", which another link uses already");
      }
      ports[end.port] = true;
    }
    if (cable.ends[0].is_switch && cable.ends[1].is_switch &&
        cable.ends[0].index == cable.ends[1].index) {
      throw topology_error(
          run, links_key,
          "\"" + text + "\" joins switch \"" + t.switches[cable.ends[0].index] + "\" to itself");
    }
    t.cables.push_back(cable);
  }
  for (std::size_t i = 0; i < t.nodes.size(); ++i) {
    if (node_cables[i] > 1) {
      throw topology_error(run, links_key,
                           "node \"" + t.nodes[i] + "\" has " + std::to_string(node_cables[i]) +
                               " cables; a node has one port, so one cable");
    }
  }
  // Connected: every node and switch reachable from node 0.
  const std::size_t vertices = t.nodes.size() + t.switches.size();
  const auto vertex = [&](const CableEnd& e) {
    return e.is_switch ? t.nodes.size() + e.index : e.index;
  };
  std::vector<bool> reached(vertices, false);
  std::deque<std::size_t> frontier{0};
  reached[0] = true;
  while (!frontier.empty()) {
    const std::size_t v = frontier.front();
    frontier.pop_front();
    for (const FabricCable& c : t.cables) {
      for (int e = 0; e < 2; ++e) {
        const std::size_t next = vertex(c.ends[1 - e]);
        if (vertex(c.ends[e]) == v && !reached[next]) {
          reached[next] = true;
          frontier.push_back(next);
        }
      }
    }
  }
  for (std::size_t v = 0; v < vertices; ++v) {
    if (reached[v]) continue;
    const bool is_node = v < t.nodes.size();
    throw topology_error(run, links_key,
                         "the topology is not connected: " +
                             std::string(is_node ? "node \"" + t.nodes[v]
                                                 : "switch \"" + t.switches[v - t.nodes.size()]) +
                             "\" cannot reach node \"" + t.nodes[0] + "\"");
  }
}

// Where a frame leaving switch `s` by `port` goes: the cable's other end;
// is_switch false with index SIZE_MAX for a port without a cable.
CableEnd next_hop(const Topology& t, std::size_t s, std::size_t port) {
  for (const FabricCable& c : t.cables) {
    for (int e = 0; e < 2; ++e) {
      if (c.ends[e].is_switch && c.ends[e].index == s && c.ends[e].port == port)
        return c.ends[1 - e];
    }
  }
  return CableEnd{false, SIZE_MAX, 0};
}

// topology.routes: each entry replaces one switch's route to one node; then
// every path toward every node is followed: it must end at that node, never
// at another node, a port without a cable, a switch with no route, or back
// at a switch it passed (a loop).
void read_routes(config::RunConfig& run, const config::Section& section, Topology& t) {
  const std::string key = section.path("routes");
  for (const std::string& text : section.at("routes").get<std::vector<std::string>>()) {
    std::istringstream words(text);
    std::string sw, node, ports, extra;
    words >> sw >> node >> ports;
    if (ports.empty() || (words >> extra)) {
      throw topology_error(
          run, key, "a route is \"<switch> <node> <port>[,<port>...]\" (got \"" + text + "\")");
    }
    const auto s = std::find(t.switches.begin(), t.switches.end(), sw);
    const auto n = std::find(t.nodes.begin(), t.nodes.end(), node);
    if (s == t.switches.end() || n == t.nodes.end()) {
      throw topology_error(run, key,
                           "\"" + text + "\" names " +
                               (s == t.switches.end() ? "switch \"" + sw : "node \"" + node) +
                               "\", which the topology lacks");
    }
    const std::size_t si = static_cast<std::size_t>(s - t.switches.begin());
    std::vector<std::size_t> group;
    std::istringstream list(ports);
    std::string port;
    while (std::getline(list, port, ',')) {
      if (port.empty() || port.size() > 6 ||
          port.find_first_not_of("0123456789") != std::string::npos ||
          std::stoul(port) >= t.switch_ports[si] ||
          next_hop(t, si, std::stoul(port)).index == SIZE_MAX) {
        throw topology_error(
            run, key,
            "\"" + text + "\": port \"" + port + "\" of switch \"" + sw + "\" has no cable");
      }
      group.push_back(std::stoul(port));
    }
    t.routes[si][static_cast<std::size_t>(n - t.nodes.begin())] = group;
  }
  for (std::size_t dest = 0; dest < t.nodes.size(); ++dest) {
    // 0: not seen, 1: on the path being followed, 2: every path from it ends well.
    std::vector<int> state(t.switches.size(), 0);
    std::vector<std::size_t> path;
    std::function<void(std::size_t)> follow = [&](std::size_t s) {
      if (state[s] == 2) return;
      path.push_back(s);
      if (state[s] == 1) {
        std::string cycle;
        for (std::size_t i = std::find(path.begin(), path.end(), s) - path.begin(); i < path.size();
             ++i)
          cycle += (cycle.empty() ? "" : " -> ") + t.switches[path[i]];
        throw topology_error(run, key,
                             "a routing loop toward node \"" + t.nodes[dest] + "\": " + cycle);
      }
      state[s] = 1;
      if (t.routes[s][dest].empty()) {
        throw topology_error(run, key,
                             "switch \"" + t.switches[s] + "\" has no route toward node \"" +
                                 t.nodes[dest] + "\", which frames reach it for");
      }
      for (const std::size_t port : t.routes[s][dest]) {
        const CableEnd hop = next_hop(t, s, port);
        if (hop.is_switch) {
          follow(hop.index);
        } else if (hop.index != dest) {
          throw topology_error(run, key,
                               "switch \"" + t.switches[s] + "\" sends frames for node \"" +
                                   t.nodes[dest] + "\" out of port " + std::to_string(port) +
                                   ", to node \"" + t.nodes[hop.index] + "\"");
        }
      }
      state[s] = 2;
      path.pop_back();
    };
    // Every switch a node's frames enter: the one on each node's cable.
    for (const FabricCable& c : t.cables) {
      for (int e = 0; e < 2; ++e) {
        if (!c.ends[e].is_switch && c.ends[e].index != dest && c.ends[1 - e].is_switch) {
          follow(c.ends[1 - e].index);
        }
      }
    }
  }
}

}  // namespace

std::vector<std::vector<std::size_t>> shortest_path_routes(const Topology& t, std::size_t s) {
  const std::size_t vertices = t.nodes.size() + t.switches.size();
  const auto vertex = [&](const CableEnd& e) {
    return e.is_switch ? t.nodes.size() + e.index : e.index;
  };
  std::vector<std::vector<std::size_t>> routes(t.nodes.size());
  for (std::size_t host = 0; host < t.nodes.size(); ++host) {
    // Hops from every vertex to the host; nodes other than the host do not
    // forward, so paths run through switches only.
    std::vector<std::size_t> hops(vertices, SIZE_MAX);
    hops[host] = 0;
    std::deque<std::size_t> frontier{host};
    while (!frontier.empty()) {
      const std::size_t v = frontier.front();
      frontier.pop_front();
      if (v != host && v < t.nodes.size()) continue;
      for (const FabricCable& c : t.cables) {
        for (int e = 0; e < 2; ++e) {
          const std::size_t next = vertex(c.ends[1 - e]);
          if (vertex(c.ends[e]) == v && hops[next] == SIZE_MAX) {
            hops[next] = hops[v] + 1;
            frontier.push_back(next);
          }
        }
      }
    }
    const std::size_t here = t.nodes.size() + s;
    for (const FabricCable& c : t.cables) {
      for (int e = 0; e < 2; ++e) {
        const CableEnd& mine = c.ends[e];
        const std::size_t next = vertex(c.ends[1 - e]);
        if (!mine.is_switch || mine.index != s || hops[here] == SIZE_MAX) continue;
        const bool forwards = next == host || next >= t.nodes.size();
        if (forwards && hops[next] + 1 == hops[here]) routes[host].push_back(mine.port);
      }
    }
    std::sort(routes[host].begin(), routes[host].end());
  }
  return routes;
}

Topology topology_config(config::RunConfig& run) {
  const config::Section section = run.section("topology");
  // The fabric's keys are read only when given, so that a back-to-back run's
  // effective_config.json keeps the bytes it had before switches existed.
  const std::string preset = given(run, "preset") ? section.text("preset") : "none";
  Topology t;
  Listed listed_by_preset;
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
    listed_by_preset = preset_lists(section, preset);
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
    read_fabric(run, section, link_texts, t);
    for (std::size_t sw = 0; sw < t.switches.size(); ++sw) {
      t.routes.push_back(shortest_path_routes(t, sw));
    }
    if (given(run, "routes")) read_routes(run, section, t);
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
