#pragma once
// The perf experiment: perftest's workloads on a two-node testbed. The node
// roles.client names is perftest's client, roles.server's its server (a and
// b by default); each is an application thread that
// calls the driver's verbs, as ib_write_lat and friends do, and the client
// timestamps its posts and completions in simulated time. The rows go
// through perf_report (perftest's statistics and formats).
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>

#include "common/message_breakdown.hpp"
#include "config/run_config.hpp"
#include "program/experiments/perf/perf_options.hpp"
#include "program/experiments/perf/perf_report.hpp"
#include "system/topology.hpp"
#include "system/wire_capture.hpp"

namespace rnicsim {

struct PerfResult {
  std::vector<perf::LatencyRow> latency;
  std::vector<perf::BwRow> bandwidth;
  nlohmann::json counters;  // the NICs' transport and the wires' statistics
  nlohmann::json statistics;  // every block's (Testbed::statistics), for statistics.json
  // faults.csv, every fault done to a frame, when a wire has faults configured.
  std::optional<std::string> fault_trace;
  // The simulator's own speed (not the model's figures: they vary from run
  // to run, so they go to speed.json, apart from the results).
  nlohmann::json speed;
  // --breakdown (latency tests): per size, where a message's time went.
  using Breakdowns = std::vector<std::pair<std::uint64_t, MessageBreakdown::Summary>>;
  Breakdowns breakdowns;
  // --pcap: both wires' frames, staged until write_perf_outputs puts them in place.
  std::unique_ptr<WireCapture> capture;
  // Why the simulated system failed (a completion in error, say), when it
  // did: the rows and counters are those up to the failure, and they are
  // written all the same, so the user can see why.
  std::optional<std::string> failure;
};

// perftest's two ends: the testbed nodes of roles.client and roles.server.
struct PerfEnds {
  std::size_t client = 0;
  std::size_t server = 1;
  std::string client_name;
  std::string server_name;
};
// Throws config::ConfigError naming the role's key when the topology lacks
// its node, when both roles name one node, or when no cable joins them.
PerfEnds perf_ends(config::RunConfig& run, const Topology& topology);

// Reads the configuration (the topology, roles, link, transport, verbs), calls
// `configured` once it has, then simulates each size of `options` in turn,
// printing perftest's banner, table and rows to `report` as they come. A run
// that simulates to a failure (RunFailed) returns with `failure` set.
// With --pcap, every frame of both wires goes into a staged capture; a path
// where it cannot be created is a ConfigError naming --pcap, before any
// simulation.
PerfResult run_perf(config::RunConfig& run, const perf::PerfOptions& options,
                    const std::function<void()>& configured, std::ostream& report,
                    std::ostream* terminal);

// The kernel TCP tests (tcp_lat, tcp_bw; tcp_perf.cpp), which run_perf hands over to.
PerfResult run_tcp_perf(config::RunConfig& run, const perf::PerfOptions& options,
                        const std::function<void()>& configured, std::ostream& report,
                        std::ostream* terminal);

// --breakdown's text below the table: per size, each stage's mean and its
// mean time after the post, the block and the point that ends it.
std::string format_breakdown(const PerfResult::Breakdowns& breakdowns);

// --pcap's staged capture, or null without --pcap; a path where it cannot
// be created is a ConfigError naming --pcap (before any simulation).
std::unique_ptr<WireCapture> open_capture(const perf::PerfOptions& options);

// perf.json in `folder` (perftest's --json document plus the NICs'
// counters), at options.json_path when --json asked for it, and the capture
// moved to options.pcap_path when --pcap did (an OutputError if it cannot be);
// speed.json (wall time, packets and process activations per wall second);
// statistics.json (every block's statistics, Testbed::statistics);
// faults.csv when a wire has faults configured. A failed run's perf.json
// names its failure ("failure").
void write_perf_outputs(const perf::PerfOptions& options, const nlohmann::json& config,
                        const PerfResult& result, const std::filesystem::path& folder);

}  // namespace rnicsim
