#include "program/experiments/fabric/traffic.hpp"

#include <algorithm>
#include <charconv>
#include <random>
#include <sstream>

#include "common/memory_budget.hpp"
#include "system/fabric_topology.hpp"

namespace rnicsim {
namespace {

std::size_t node_named(const std::string& name, const Topology& topology, const std::string& what,
                       const std::string& key, const std::string& source) {
  const auto it = std::find(topology.nodes.begin(), topology.nodes.end(), name);
  if (it == topology.nodes.end()) {
    throw config::ConfigError(source, key,
                              what + " \"" + name +
                                  "\" is not a node of the topology (its nodes: " +
                                  topology_reading::listed(topology.nodes) + ")");
  }
  return static_cast<std::size_t>(it - topology.nodes.begin());
}

FlowVerb verb_named(const std::string& name, const std::string& key, const std::string& source) {
  if (name == "write") return FlowVerb::kWrite;
  if (name == "read") return FlowVerb::kRead;
  if (name == "send") return FlowVerb::kSend;
  throw config::ConfigError(source, key, "verb \"" + name + "\" is none of write, read, send");
}

// A whole decimal number, optionally signed, that a long long holds; nullopt
// for anything else.
std::optional<long long> whole_number(const std::string& text) {
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (first != last && *first == '+') ++first;
  long long value = 0;
  const auto [end, error] = std::from_chars(first, last, value);
  if (error != std::errc() || end != last || first == last) return std::nullopt;
  return value;
}

long long number_field(const std::string& field, const std::string& text, const std::string& key,
                       const std::string& source) {
  const std::optional<long long> value = whole_number(text);
  if (!value) {
    throw config::ConfigError(
        source, key, field + " \"" + text + "\" is not a whole number (of at most 18 digits)");
  }
  return *value;
}

void check_flow(const FlowSpec& f, const Topology& topology, const std::string& key,
                const std::string& source) {
  if (f.source == f.destination) {
    throw config::ConfigError(
        source, key,
        "runs from node \"" + topology.nodes[f.source] + "\" to itself; a flow joins two nodes");
  }
  if (!topology.switched() && topology.peer_of(f.source) != f.destination) {
    throw config::ConfigError(source, key,
                              "joins \"" + topology.nodes[f.source] + "\" and \"" +
                                  topology.nodes[f.destination] +
                                  "\", which no cable joins (back to back, a flow runs between a "
                                  "cable's two ends)");
  }
}

}  // namespace

const char* to_string(FlowVerb verb) {
  switch (verb) {
    case FlowVerb::kWrite:
      return "write";
    case FlowVerb::kRead:
      return "read";
    case FlowVerb::kSend:
      return "send";
  }
  return "?";
}

void declare_traffic_keys(config::Schema& schema) {
  schema.add(config::string_key("traffic.pattern", "incast",
                                "fabric: the flows: incast (traffic.senders to traffic.receiver), "
                                "permutation (every node to another, a seeded derangement), "
                                "all_to_all (every ordered pair of nodes), flows (traffic.flows)")
                 .one_of({"incast", "permutation", "all_to_all", "flows"}));
  schema.add(config::string_key("traffic.verb", "write",
                                "fabric: the patterns' verb (a flow line gives its own)")
                 .one_of({"write", "read", "send"}));
  schema.add(
      config::integer_key("traffic.bytes", 65536, "bytes", "fabric: the patterns' message size")
          .at_least(1)
          .at_most(static_cast<double>(kMaxFlowMessageBytes)));
  schema.add(config::integer_key("traffic.messages", 1, "messages",
                                 "fabric: messages per flow of the patterns")
                 .at_least(1)
                 .at_most(static_cast<double>(kMaxFlowMessages)));
  schema.add(config::integer_key("traffic.qps", 1, "QPs",
                                 "fabric: QPs per flow of the patterns; its messages go on them "
                                 "in turn")
                 .at_least(1)
                 .at_most(64));
  schema.add(config::integer_key("traffic.priority", 3, "",
                                 "fabric: the patterns' priority (0-7): its QPs' DSCP is the first "
                                 "that qos.dscp_classes maps to it")
                 .at_least(0)
                 .at_most(7));
  schema.add(config::integer_key("traffic.start_ns", 0, "ns",
                                 "fabric: when the patterns' flows start, after every QP is "
                                 "connected")
                 .at_least(0)
                 .at_most(static_cast<double>(kMaxStartNs)));
  schema.add(config::string_key("traffic.receiver", "",
                                "incast: the node every sender writes to (empty: the first node)"));
  schema.add(config::integer_key("traffic.senders", 0, "nodes",
                                 "incast: how many senders, the nodes after the receiver in "
                                 "topology order (0: every other node)")
                 .at_least(0)
                 .at_most(kMaxTopologyNodes));
  schema.add(config::string_list_key(
      "traffic.flows", config::Json::array(),
      "flows: one line per flow, \"<source> <destination> <verb> <bytes> [messages=N] "
      "[start_ns=T] [qps=Q] [priority=P]\" (the pattern's values where not given)"));
  schema.add(config::integer_key("traffic.depth", 128, "messages",
                                 "fabric: messages outstanding per QP (perftest's tx_depth)")
                 .at_least(1)
                 .at_most(4096));
  schema.add(config::integer_key("traffic.cq_moderation", 100, "messages",
                                 "fabric: a QP's every this many messages (at most "
                                 "traffic.depth), and its last, ask for a completion "
                                 "(perftest's --cq-mod)")
                 .at_least(1)
                 .at_most(4096));
  schema.add(config::integer_key("traffic.qp_timeout", 14, "",
                                 "fabric: the QPs' local ACK timeout, 4.096 us x 2^value (IBTA; "
                                 "perftest's 14 is 67 ms), after which an unacknowledged packet "
                                 "is sent again")
                 .at_least(1)
                 .at_most(31));
  schema.add(config::integer_key("traffic.sample_ns", 1000, "ns",
                                 "fabric: the bin of the throughput and queue time series")
                 .at_least(10)
                 .at_most(1e12));
}

FlowSpec parse_flow(const std::string& line, const FlowSpec& defaults, const Topology& topology,
                    const std::string& key, const std::string& source) {
  std::istringstream words(line);
  std::vector<std::string> w;
  for (std::string word; words >> word;) w.push_back(word);
  if (w.size() < 4) {
    throw config::ConfigError(source, key,
                              "\"" + line +
                                  "\" is not \"<source> <destination> <verb> <bytes> [messages=N] "
                                  "[start_ns=T] [qps=Q] [priority=P]\"");
  }
  FlowSpec f = defaults;
  f.key = key;
  f.source = node_named(w[0], topology, "source", key, source);
  f.destination = node_named(w[1], topology, "destination", key, source);
  f.verb = verb_named(w[2], key, source);
  const long long bytes = number_field("bytes", w[3], key, source);
  if (bytes < 1 || static_cast<unsigned long long>(bytes) > kMaxFlowMessageBytes) {
    throw config::ConfigError(source, key,
                              "bytes " + w[3] + ": a " + w[2] + " carries 1 to " +
                                  std::to_string(kMaxFlowMessageBytes) +
                                  " bytes (IBTA's largest message, 2^31)");
  }
  f.bytes = static_cast<std::uint64_t>(bytes);
  for (std::size_t i = 4; i < w.size(); ++i) {
    const std::size_t eq = w[i].find('=');
    const std::string name = w[i].substr(0, eq);
    if (eq == std::string::npos) {
      throw config::ConfigError(source, key, "\"" + w[i] + "\" is not <field>=<value>");
    }
    const long long value = number_field(name, w[i].substr(eq + 1), key, source);
    if (name == "start_ns") {
      if (value < 0) {
        throw config::ConfigError(source, key,
                                  "start_ns " + std::to_string(value) +
                                      " is in the past of the run: 0 is when every flow's QPs are "
                                      "connected");
      }
      if (static_cast<unsigned long long>(value) > kMaxStartNs) {
        throw config::ConfigError(source, key,
                                  "start_ns " + std::to_string(value) + " is past " +
                                      std::to_string(kMaxStartNs) + " (1000 s)");
      }
      f.start_ns = static_cast<std::uint64_t>(value);
    } else if (name == "messages") {
      if (value < 1 || static_cast<unsigned long long>(value) > kMaxFlowMessages) {
        throw config::ConfigError(source, key,
                                  "messages must be 1 to " + std::to_string(kMaxFlowMessages));
      }
      f.messages = static_cast<std::uint64_t>(value);
    } else if (name == "qps") {
      if (value < 1 || value > 64) throw config::ConfigError(source, key, "qps must be 1 to 64");
      f.qps = static_cast<std::uint32_t>(value);
    } else if (name == "priority") {
      if (value < 0 || value > 7) throw config::ConfigError(source, key, "priority must be 0 to 7");
      f.priority = static_cast<std::uint8_t>(value);
    } else {
      throw config::ConfigError(
          source, key, "field \"" + name + "\" is none of messages, start_ns, qps, priority");
    }
  }
  check_flow(f, topology, key, source);
  return f;
}

TrafficConfig traffic_config(config::RunConfig& run, const Topology& topology) {
  const config::Section s = run.section("traffic");
  TrafficConfig t;
  t.pattern = s.text("pattern");
  t.depth = s.integer("depth");
  t.cq_moderation = s.integer("cq_moderation");
  t.sample_ns = s.integer("sample_ns");
  t.qp_timeout = static_cast<std::uint8_t>(s.integer("qp_timeout"));
  FlowSpec common;
  common.verb = verb_named(s.text("verb"), s.path("verb"), run.loaded().source_of(s.path("verb")));
  common.bytes = s.integer("bytes");
  common.messages = s.integer("messages");
  common.qps = static_cast<std::uint32_t>(s.integer("qps"));
  common.priority = static_cast<std::uint8_t>(s.integer("priority"));
  common.start_ns = s.integer("start_ns");
  common.key = s.path("pattern");
  const std::size_t n = topology.nodes.size();
  const auto add = [&](std::size_t from, std::size_t to) {
    FlowSpec f = common;
    f.source = from;
    f.destination = to;
    check_flow(f, topology, f.key, run.loaded().source_of(f.key));
    t.flows.push_back(f);
  };
  if (t.pattern == "incast") {
    const std::string receiver_key = s.path("receiver");
    const std::string name = s.text("receiver");
    const std::size_t receiver = name.empty() ? 0
                                              : node_named(name, topology, "receiver", receiver_key,
                                                           run.loaded().source_of(receiver_key));
    std::size_t senders = s.integer("senders");
    if (senders == 0) senders = n - 1;
    if (senders > n - 1) {
      const std::string key = s.path("senders");
      throw config::ConfigError(run.loaded().source_of(key), key,
                                std::to_string(senders) + " senders, but the topology has " +
                                    std::to_string(n) + " nodes (at most " + std::to_string(n - 1) +
                                    " senders)");
    }
    for (std::size_t k = 1; k <= senders; ++k) add((receiver + k) % n, receiver);
  } else if (t.pattern == "permutation") {
    // Sattolo's shuffle: one cycle through every node, so no node sends to itself.
    std::vector<std::size_t> to(n);
    for (std::size_t i = 0; i < n; ++i) to[i] = i;
    std::mt19937_64 random(s.stream_seed("permutation"));
    for (std::size_t i = n - 1; i > 0; --i) {
      std::swap(to[i], to[std::uniform_int_distribution<std::size_t>(0, i - 1)(random)]);
    }
    for (std::size_t i = 0; i < n && n > 1; ++i) add(i, to[i]);
  } else if (t.pattern == "all_to_all") {
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = 0; j < n; ++j) {
        if (i != j) add(i, j);
      }
    }
  } else {
    const std::string key = s.path("flows");
    const std::vector<std::string> lines = s.at("flows").get<std::vector<std::string>>();
    for (std::size_t i = 0; i < lines.size(); ++i) {
      const std::string line_key = key + "[" + std::to_string(i) + "]";
      // A line gives its own verb and bytes; its options default to the pattern's.
      t.flows.push_back(
          parse_flow(lines[i], common, topology, line_key, run.loaded().source_of(key)));
    }
  }
  if (t.flows.empty()) {
    const std::string key = t.pattern == "flows" ? s.path("flows") : s.path("pattern");
    throw config::ConfigError(run.loaded().source_of(key), key, "gives no flow");
  }
  // The flows' buffers, written at both ends, and the nodes themselves
  // (measured: 0.62 MiB a node; results/bench/README.md) must fit the budget.
  std::uint64_t buffers = 0;
  for (const FlowSpec& f : t.flows) buffers += 2 * f.bytes * f.busy_qps();
  const std::uint64_t estimate = kSimulatorBaselineBytes + n * kMiB + buffers;
  if (buffers > kRunMemoryBudgetBytes || estimate > kRunMemoryBudgetBytes) {
    const std::string key = t.pattern == "flows" ? s.path("flows") : s.path("bytes");
    throw config::ConfigError(
        run.loaded().source_of(key), key,
        "the flows' buffers (bytes x QPs at both ends of each flow: " +
            std::to_string(buffers / kMiB) + " MiB) and " + std::to_string(n) +
            " nodes need about " + std::to_string(estimate / kMiB) +
            " MiB, over the run's budget of " + std::to_string(kRunMemoryBudgetBytes / kMiB) +
            " MiB: fewer or smaller messages' buffers (bytes, qps) or flows");
  }
  return t;
}

}  // namespace rnicsim
