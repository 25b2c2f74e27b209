#pragma once
// The switched side of the topology section (topology.hpp): the presets'
// lists, switch ports, cables with their rates and lengths, routes and their
// checks. topology.cpp reads the section and calls these; every error names
// its key (ConfigError, exit 2).
#include <string>
#include <vector>

#include "config/run_config.hpp"
#include "system/topology.hpp"

namespace rnicsim::topology_reading {

inline config::ConfigError topology_error(config::RunConfig& run, const std::string& key,
                                          const std::string& reason) {
  return config::ConfigError(run.loaded().source_of(key), key, reason);
}

// "a, b" (or "none"), for messages.
inline std::string listed(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& n : names) text += (text.empty() ? "" : ", ") + n;
  return text.empty() ? "none" : text;
}

// The preset's nodes, switches and links, as a user would have listed them.
struct Listed {
  std::vector<std::string> nodes, switches, links;
};
Listed preset_lists(const config::Section& section, const std::string& preset);

// The switches' ports and the cables of `link_texts`, checked: each port
// used once, each node on one cable, every cable with a switch end, all
// connected.
void read_fabric(config::RunConfig& run, const config::Section& section,
                 const std::vector<std::string>& link_texts, Topology& t);

// topology.routes in place of the generated routes, and every path checked.
void read_routes(config::RunConfig& run, const config::Section& section, Topology& t);

}  // namespace rnicsim::topology_reading
