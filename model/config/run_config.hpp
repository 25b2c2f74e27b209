#pragma once
// RunConfig and Section: how blocks read a loaded configuration.
//
// A block reads its own section through a Section, never the whole document.
// A node's block (host, pcie, dma, ...) reads `nodes.<node>.<section>.<key>`
// when given, else `<section>.<key>`, so two nodes share defaults and can
// differ. Every read is recorded, which gives two things:
// - a key the user gave that no block of the run reads is an error naming it
//   (require_all_read), instead of a setting that silently does nothing;
// - effective_config.json holds the values actually used, node by node
//   (used()); run again, it gives the same results.
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.hpp"

namespace rnicsim::config {

class RunConfig;

class Section {
 public:
  const Json& at(std::string_view key) const;
  double number(std::string_view key) const { return at(key).get<double>(); }
  std::uint64_t integer(std::string_view key) const { return at(key).get<std::uint64_t>(); }
  bool boolean(std::string_view key) const { return at(key).get<bool>(); }
  std::string text(std::string_view key) const { return at(key).get<std::string>(); }
  std::vector<std::uint64_t> integers(std::string_view key) const {
    return at(key).get<std::vector<std::uint64_t>>();
  }

  // The section's place: "nodes.a.pcie" for a node's block, "link" for a shared one.
  const std::string& instance() const { return instance_; }
  // The key's full path in that place, for messages: "nodes.a.pcie.lanes".
  std::string path(std::string_view key) const { return instance_ + "." + std::string(key); }
  // Seed of this instance's random stream: a hash of (the run's seed, its
  // instance path), so two NICs draw different streams from one seed.
  std::uint64_t stream_seed(std::string_view stream = "") const;
  // The seed of the stream this section drew when it had another name: a
  // renamed section keeps its stream's first name ("mtt" for "translation"),
  // so a config and seed draw the numbers they drew before the rename.
  std::uint64_t stream_seed_named(std::string_view first_name) const;

 private:
  friend class RunConfig;
  Section(RunConfig& run, std::string node, std::string name);

  RunConfig* run_;
  std::string node_;  // empty for a shared section
  std::string name_;
  std::string instance_;
};

class RunConfig {
 public:
  // `loaded` has passed config::load_config.
  explicit RunConfig(LoadedConfig loaded);

  // Node `node`'s copy of a node section, e.g. node_section("a", "pcie").
  Section node_section(std::string_view node, std::string_view name);
  // A section every node shares, or one of the experiment's (link, workload, output).
  Section section(std::string_view name);
  // A top-level key ("experiment", "seed").
  const Json& at(std::string_view key);

  // Throws ConfigError naming the first key the file or a --set gave that no
  // block read, and who gave it.
  void require_all_read(std::string_view experiment) const;
  // The values read. A node section's value every node that read it agrees
  // on is given once, in the shared section; where nodes differ, each node's
  // value sits under nodes.<node>. Loaded again, it gives every block the
  // same values, and the rules between keys hold on it.
  Json used() const;
  const LoadedConfig& loaded() const { return loaded_; }

 private:
  friend class Section;
  const Json& read(const std::string& node, const std::string& name, std::string_view key);
  void record(const std::string& path, const Json& value);
  std::string unbuilt_node_reason(std::string_view experiment, const std::string& node) const;

  LoadedConfig loaded_;
  std::set<std::string> read_;   // every path read, given or defaulted
  std::set<std::string> nodes_;  // the nodes whose sections were read
  Json used_ = Json::object();
};

// splitmix64 of a 64-bit FNV-1a hash of `name` mixed with `seed`: a stable,
// well-spread seed for one named stream.
std::uint64_t stream_seed(std::uint64_t seed, std::string_view name);

}  // namespace rnicsim::config
