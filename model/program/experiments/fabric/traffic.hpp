#pragma once
// The fabric experiment's traffic section: which RC flows run, between which
// nodes, when, with what verb and how many bytes. A pattern (N-to-1 incast,
// a permutation, all-to-all) or an explicit list of flows, each line
//
//   "<source> <destination> <verb> <bytes> [messages=N] [start_ns=T] [qps=Q] [priority=P]"
//
// A flow is `messages` messages of `bytes` each, posted by its source (the
// requester) on `qps` QPs in turn, at most traffic.depth outstanding per QP,
// from `start_ns` after every flow's QPs are connected. A write or send moves
// its bytes from source to destination; a read from destination to source.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "config/run_config.hpp"
#include "system/topology.hpp"

namespace rnicsim {

enum class FlowVerb : std::uint8_t { kWrite, kRead, kSend };
const char* to_string(FlowVerb verb);

struct FlowSpec {
  std::size_t source = 0;       // topology node index: the requester
  std::size_t destination = 0;  // its peer
  FlowVerb verb = FlowVerb::kWrite;
  std::uint64_t bytes = 0;  // per message
  std::uint64_t messages = 1;
  std::uint64_t start_ns = 0;  // after set-up ends
  std::uint32_t qps = 1;
  std::uint8_t priority = 3;  // the PFC priority (and class) its frames carry
  std::string key;            // the key that gave it (traffic.flows[i], or traffic.pattern)
  // The node whose port the payload arrives at: the destination, or the
  // source for a read.
  std::size_t data_receiver() const { return verb == FlowVerb::kRead ? source : destination; }
  std::size_t data_sender() const { return verb == FlowVerb::kRead ? destination : source; }
  // QPs that carry a message (a flow with fewer messages than QPs leaves some idle).
  std::uint32_t busy_qps() const {
    return static_cast<std::uint32_t>(std::min<std::uint64_t>(qps, messages));
  }
};

struct TrafficConfig {
  std::string pattern;  // incast, permutation, all_to_all, flows
  std::vector<FlowSpec> flows;
  std::uint64_t depth = 128;          // messages outstanding per QP (perftest's tx_depth)
  std::uint64_t cq_moderation = 100;  // a completion asked every this many (perftest's)
  std::uint8_t qp_timeout = 14;       // local ACK timeout: 4.096 us x 2^this (perftest's)
  std::uint64_t sample_ns = 1000;     // the time series' bin
};

// The latest a flow may start (1000 s of simulated time).
inline constexpr std::uint64_t kMaxStartNs = 1000000000000;

// The most messages a flow may have (so that its bytes, at most 2^31 a
// message, stay well inside 64 bits).
inline constexpr std::uint64_t kMaxFlowMessages = 1000000000;

// The largest message IBTA lets a verb carry (2^31 bytes).
inline constexpr std::uint64_t kMaxFlowMessageBytes = std::uint64_t{1} << 31;

void declare_traffic_keys(config::Schema& schema);

// Reads the traffic section against `topology`; a flow between unknown nodes,
// a start before the run's or a size its verb cannot carry is a ConfigError
// naming the key (traffic.flows[i] for a line) and the reason; so are flows
// whose buffers the simulator could not hold within the run's memory budget
// (common/memory_budget.hpp: every QP's buffer is written at both ends).
TrafficConfig traffic_config(config::RunConfig& run, const Topology& topology);

// Parses one flow line (the format above), the options it omits taken from
// `defaults`; throws ConfigError naming `key`, from `source`.
FlowSpec parse_flow(const std::string& line, const FlowSpec& defaults, const Topology& topology,
                    const std::string& key, const std::string& source);

}  // namespace rnicsim
