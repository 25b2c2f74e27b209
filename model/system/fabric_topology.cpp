#include "system/fabric_topology.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <functional>
#include <sstream>

namespace rnicsim {
namespace topology_reading {

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

namespace {

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

// A vertex of the topology's graph: node i is i, switch s is nodes + s.
std::size_t vertex_of(const Topology& t, const CableEnd& end) {
  return end.is_switch ? t.nodes.size() + end.index : end.index;
}

// Each vertex's cables, as (its own end, the far end).
using CablesAt = std::vector<std::vector<std::pair<const CableEnd*, const CableEnd*>>>;
CablesAt cables_at(const Topology& t) {
  CablesAt at(t.nodes.size() + t.switches.size());
  for (const FabricCable& c : t.cables) {
    for (int e = 0; e < 2; ++e) at[vertex_of(t, c.ends[e])].push_back({&c.ends[e], &c.ends[1 - e]});
  }
  return at;
}

// Hops from every vertex to node `target` (SIZE_MAX: unreachable). Nodes
// other than the target do not forward, so paths run through switches only.
std::vector<std::size_t> hops_to(const Topology& t, const CablesAt& at, std::size_t target) {
  std::vector<std::size_t> hops(at.size(), SIZE_MAX);
  hops[target] = 0;
  std::deque<std::size_t> frontier{target};
  while (!frontier.empty()) {
    const std::size_t v = frontier.front();
    frontier.pop_front();
    if (v != target && v < t.nodes.size()) continue;
    for (const auto& [mine, far] : at[v]) {
      const std::size_t next = vertex_of(t, *far);
      if (hops[next] == SIZE_MAX) {
        hops[next] = hops[v] + 1;
        frontier.push_back(next);
      }
    }
  }
  return hops;
}

}  // namespace

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
  // Connected: every node and switch reachable from node 0 (nodes have one
  // cable, so that no path runs through one changes nothing here).
  const std::vector<std::size_t> hops = hops_to(t, cables_at(t), 0);
  const std::size_t vertices = hops.size();
  for (std::size_t v = 0; v < vertices; ++v) {
    if (hops[v] != SIZE_MAX) continue;
    const bool is_node = v < t.nodes.size();
    throw topology_error(run, links_key,
                         "the topology is not connected: " +
                             std::string(is_node ? "node \"" + t.nodes[v]
                                                 : "switch \"" + t.switches[v - t.nodes.size()]) +
                             "\" cannot reach node \"" + t.nodes[0] + "\"");
  }
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

}  // namespace topology_reading

std::vector<std::vector<std::vector<std::size_t>>> shortest_path_routes(const Topology& t) {
  using topology_reading::hops_to;
  using topology_reading::vertex_of;
  const topology_reading::CablesAt at = topology_reading::cables_at(t);
  std::vector<std::vector<std::vector<std::size_t>>> routes(
      t.switches.size(), std::vector<std::vector<std::size_t>>(t.nodes.size()));
  for (std::size_t node = 0; node < t.nodes.size(); ++node) {
    const std::vector<std::size_t> hops = hops_to(t, at, node);
    for (std::size_t s = 0; s < t.switches.size(); ++s) {
      const std::size_t here = t.nodes.size() + s;
      if (hops[here] == SIZE_MAX) continue;
      std::vector<std::size_t>& ports = routes[s][node];
      for (const auto& [mine, far] : at[here]) {
        const std::size_t next = vertex_of(t, *far);
        const bool forwards = next == node || far->is_switch;
        if (forwards && hops[next] + 1 == hops[here]) ports.push_back(mine->port);
      }
      std::sort(ports.begin(), ports.end());
    }
  }
  return routes;
}

}  // namespace rnicsim
