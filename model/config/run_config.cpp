#include "config/run_config.hpp"

#include <algorithm>
#include <functional>
#include <iterator>
#include <map>
#include <utility>

namespace rnicsim::config {
namespace {

// Every leaf path of `doc` ("pcie.lanes", "nodes.b.pcie.lanes"), in document order.
void leaf_paths(const Json& doc, const std::string& prefix, std::vector<std::string>& out) {
  for (const auto& member : doc.items()) {
    const std::string path = prefix.empty() ? member.key() : prefix + "." + member.key();
    if (member.value().is_object()) {
      leaf_paths(member.value(), path, out);
    } else {
      out.push_back(path);
    }
  }
}

Json& slot_at(Json& doc, const std::string& path) {
  Json* node = &doc;
  std::size_t start = 0;
  for (std::size_t dot = path.find('.'); dot != std::string::npos;
       start = dot + 1, dot = path.find('.', start)) {
    node = &(*node)[path.substr(start, dot - start)];
  }
  return (*node)[path.substr(start)];
}

// A section's place: "nodes.<node>.<name>" for a node's, "<name>" for a shared one.
std::string instance_path(const std::string& node, std::string_view name) {
  return node.empty() ? std::string(name)
                      : std::string(kNodesSection) + "." + node + "." + std::string(name);
}

}  // namespace

std::uint64_t stream_seed(std::uint64_t seed, std::string_view name) {
  std::uint64_t hash = 14695981039346656037ULL;  // FNV-1a offset basis
  for (const char c : name) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ULL;  // FNV prime
  }
  std::uint64_t z = hash ^ (seed + 0x9e3779b97f4a7c15ULL);  // splitmix64 finalizer
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::string RunConfig::unbuilt_node_reason(std::string_view experiment,
                                           const std::string& node) const {
  std::string names;
  for (const auto& n : nodes_) names += (names.empty() ? "" : ", ") + n;
  return "the " + std::string(experiment) + " experiment has no node " + node +
         (names.empty() ? " (it builds no nodes)" : " (its nodes: " + names + ")");
}

Section::Section(RunConfig& run, std::string node, std::string name)
    : run_(&run), node_(std::move(node)), name_(std::move(name)),
      instance_(instance_path(node_, name_)) {}

const Json& Section::at(std::string_view key) const { return run_->read(node_, name_, key); }

std::uint64_t Section::stream_seed(std::string_view stream) const {
  const std::string name = stream.empty() ? instance_ : instance_ + "." + std::string(stream);
  return config::stream_seed(run_->at("seed").get<std::uint64_t>(), name);
}

std::uint64_t Section::stream_seed_named(std::string_view first_name) const {
  return config::stream_seed(run_->at("seed").get<std::uint64_t>(),
                             instance_path(node_, first_name));
}

RunConfig::RunConfig(LoadedConfig loaded) : loaded_(std::move(loaded)) {}

Section RunConfig::node_section(std::string_view node, std::string_view name) {
  if (!loaded_.effective.is_object() || node.empty()) {
    throw std::logic_error("node_section needs a node name");
  }
  nodes_.insert(std::string(node));
  return Section(*this, std::string(node), std::string(name));
}

Section RunConfig::section(std::string_view name) {
  return Section(*this, "", std::string(name));
}

const Json& RunConfig::at(std::string_view key) {
  const std::string path(key);
  const Json& value = at_path(loaded_.effective, path);
  record(path, value);
  return value;
}

void RunConfig::record(const std::string& path, const Json& value) {
  read_.insert(path);
  slot_at(used_, path) = value;
}

const Json& RunConfig::read(const std::string& node, const std::string& name,
                            std::string_view key) {
  const std::string shared = name + "." + std::string(key);
  if (node.empty()) {
    const Json& value = at_path(loaded_.effective, shared);
    record(shared, value);
    return value;
  }
  const std::string own = std::string(kNodesSection) + "." + node + "." + shared;
  // The shared value counts as read too: it is this node's default.
  read_.insert(shared);
  const Json* value = nullptr;
  try {
    value = &at_path(loaded_.effective, own);
    read_.insert(own);
  } catch (const std::out_of_range&) {
    value = &at_path(loaded_.effective, shared);
  }
  slot_at(used_, own) = *value;
  return *value;
}

Json RunConfig::used() const {
  Json out = used_;
  const auto nodes = out.find(kNodesSection);
  if (nodes == out.end()) return out;
  // Every (section, key) some node read, with the values the nodes used.
  std::map<std::pair<std::string, std::string>, std::vector<Json>> values;
  for (const auto& node : nodes->items()) {
    for (const auto& section : node.value().items()) {
      for (const auto& key : section.value().items()) {
        values[{section.key(), key.key()}].push_back(key.value());
      }
    }
  }
  for (const auto& [where, seen] : values) {
    if (std::adjacent_find(seen.begin(), seen.end(), std::not_equal_to<>()) != seen.end()) {
      continue;  // the nodes differ: each keeps its own
    }
    out[where.first][where.second] = seen.front();
    for (auto& node : nodes->items()) {
      const auto section = node.value().find(where.first);
      if (section != node.value().end()) section->erase(where.second);
    }
  }
  // Drop what the move emptied.
  for (auto& node : nodes->items()) {
    for (auto it = node.value().begin(); it != node.value().end();) {
      it = it->empty() ? node.value().erase(it) : std::next(it);
    }
  }
  for (auto it = nodes->begin(); it != nodes->end();) {
    it = it->empty() ? nodes->erase(it) : std::next(it);
  }
  if (nodes->empty()) out.erase(std::string(kNodesSection));
  return out;
}

void RunConfig::require_all_read(std::string_view experiment) const {
  std::vector<std::string> given;
  leaf_paths(loaded_.given, "", given);
  for (const std::string& path : given) {
    if (read_.count(path) != 0) continue;
    std::string reason = "no block of the " + std::string(experiment) + " experiment reads it";
    const std::string nodes_prefix = std::string(kNodesSection) + ".";
    if (path.compare(0, nodes_prefix.size(), nodes_prefix) == 0) {
      const std::string rest = path.substr(nodes_prefix.size());
      const std::string node = rest.substr(0, rest.find('.'));
      if (nodes_.count(node) == 0) reason = unbuilt_node_reason(experiment, node);
    }
    throw ConfigError(loaded_.source_of(path), path, reason);
  }
  // A node the experiment does not build, with no key in it.
  if (const auto nodes = loaded_.given.find(kNodesSection); nodes != loaded_.given.end()) {
    for (const auto& node : nodes->items()) {
      if (nodes_.count(node.key()) != 0) continue;
      throw ConfigError(loaded_.source_of(std::string(kNodesSection) + "." + node.key()),
                        std::string(kNodesSection) + "." + node.key(),
                        unbuilt_node_reason(experiment, node.key()));
    }
  }
}

}  // namespace rnicsim::config
