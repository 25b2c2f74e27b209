#include "program/experiments/perf/perf_experiment.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "common/activity.hpp"
#include "common/message_breakdown.hpp"
#include "common/ring_queue.hpp"
#include "common/run_progress.hpp"
#include "common/simulation.hpp"
#include "common/statistics.hpp"
#include "common/time_units.hpp"
#include "program/experiments/output_files.hpp"
#include "program/experiments/perf/cpu_report.hpp"
#include "program/experiments/perf/perf_workload.hpp"
#include "system/rc_connection.hpp"
#include "system/testbed.hpp"

namespace rnicsim {
namespace {

// A NIC's context and translation caches: hits, misses and how long each
// miss took (its context read or table walk, queueing included).
nlohmann::json caches_json(const Nic& nic) {
  const TransportStats& t = nic.transport.stats();
  auto cache = [](std::uint64_t hits, std::uint64_t misses, const LatencyHistogram& latency) {
    return nlohmann::json{{"hits", hits}, {"misses", misses}, {"miss_latency", latency.to_json()}};
  };
  return {{"qpc", cache(t.qp_cache_hits, t.qp_cache_misses, nic.transport.qp_miss_latency())},
          {"cqc", cache(t.cq_cache_hits, t.cq_cache_misses, nic.transport.cq_miss_latency())},
          {"mpt", cache(nic.translation.mpt_cache().hits(), nic.translation.mpt_cache().misses(),
                        nic.translation.mpt_miss_latency())},
          {"mtt", cache(nic.translation.mtt_cache().hits(), nic.translation.mtt_cache().misses(),
                        nic.translation.mtt_miss_latency())}};
}

// Each requester engine's busy time, in ns.
nlohmann::json engines_busy_json(const Nic& nic) {
  nlohmann::json busy = nlohmann::json::array();
  for (const sc_core::sc_time& t : nic.requester.engine_busy()) busy.push_back(to_ns(t));
  return busy;
}

}  // namespace

using perf::PerfOptions;

std::string format_breakdown(const PerfResult::Breakdowns& breakdowns) {
  std::string text = "\nWhere a message's time goes (mean over its messages, ns; --breakdown):\n";
  for (const auto& [bytes, summary] : breakdowns) {
    text += " " + std::to_string(bytes) + " B, " + std::to_string(summary.messages) + " messages\n";
    for (const auto& stage : summary.stages) {
      char line[160];
      std::snprintf(line, sizeof line, "   %9.1f  %9.1f  %-20s %s\n", stage.mean_ns,
                    stage.mean_end_ns, stage.block.c_str(), stage.point.c_str());
      text += line;
    }
  }
  return text;
}

std::unique_ptr<WireCapture> open_capture(const PerfOptions& options) {
  if (!options.pcap_path) return nullptr;
  try {
    return std::make_unique<WireCapture>(*options.pcap_path);
  } catch (const packet::PcapError& e) {
    throw config::ConfigError("--pcap " + *options.pcap_path, "", e.reason());
  }
}

PerfEnds perf_ends(config::RunConfig& run, const Topology& topology) {
  PerfEnds ends;
  ends.client = role_node(run, topology, "client");
  ends.server = role_node(run, topology, "server");
  ends.client_name = topology.nodes[ends.client];
  ends.server_name = topology.nodes[ends.server];
  const char* server_key = "roles.server";
  if (ends.client == ends.server) {
    throw config::ConfigError(run.loaded().source_of(server_key), server_key,
                              "names \"" + ends.server_name +
                                  "\", the client's node too; perf's client and server run on "
                                  "two nodes joined by a cable");
  }
  if (!topology.switched() && topology.peer_of(ends.client) != ends.server) {
    throw config::ConfigError(run.loaded().source_of(server_key), server_key,
                              "names \"" + ends.server_name + "\", which no cable joins to the "
                              "client's node \"" + ends.client_name + "\" (topology.links)");
  }
  return ends;
}

PerfResult run_perf(config::RunConfig& run, const PerfOptions& options,
                    const std::function<void()>& configured, std::ostream& report,
                    std::ostream* terminal) {
  if (options.is_tcp()) return run_tcp_perf(run, options, configured, report, terminal);
  TestbedRequest request;
  request.host_software = true;
  request.verbs = true;
  const TestbedConfig c = testbed_config(run, request);
  const PerfEnds ends = perf_ends(run, c.topology);
  configured();
  std::unique_ptr<WireCapture> capture = open_capture(options);
  Testbed testbed("testbed", c);
  if (capture && testbed.switched()) {
    for (MacPort* mac : testbed.fabric_macs()) capture->tap(*mac);
  } else if (capture) {
    for (std::size_t i = 0; i < testbed.node_count(); ++i) capture->tap(testbed.wire_to(i));
  }
  std::optional<std::string> fault_trace;
  // A switched topology has no faulty cables (the testbed refuses faults there).
  for (std::size_t i = 0; !testbed.switched() && i < testbed.node_count(); ++i) {
    WireLink& wire = testbed.wire_to(i);
    if (wire.faults() == nullptr) continue;
    if (!fault_trace) fault_trace = fault_trace_csv_header();
    wire.set_fault_trace(
        [&fault_trace](const FaultEvent& e) { *fault_trace += fault_trace_csv_row(e); });
  }
  RunProgress progress(terminal);
  PerfWorkload workload("perf", testbed, ends, options, report, progress);
  if (options.breakdown) MessageBreakdown::instance().enable();
  reset_activity();
  // The client's iterations; a BW test's are per QP.
  progress.start("iterations", options.iterations * (options.is_latency() ? 1 : options.qps) *
                                   options.sizes.size());
  const auto started = std::chrono::steady_clock::now();
  std::optional<std::string> failure;
  try {
    simulate_workload(1);
  } catch (const RunFailed& e) {
    failure = e.what();  // its counters and capture are what tell the user why
  }
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  // perf.json's counters: each NIC's transport statistics and each wire's,
  // from the testbed's statistics (statistics.json has every block's).
  // With --warmup, the counts and times of the measured passes only.
  const nlohmann::json statistics =
      workload.warmup_statistics().is_null()
          ? testbed.statistics()
          : statistics_combined(testbed.statistics(), workload.warmup_statistics(), -1);
  nlohmann::json counters = nlohmann::json::object();
  for (std::size_t i = 0; i < testbed.node_count(); ++i) {
    Nic& nic = testbed.node(i).nic;
    nlohmann::json& node = counters[testbed.node(i).basename()];
    node = statistics["nodes"][testbed.node(i).basename()]["transport"];
    node["caches"] = caches_json(nic);
    node["requester_engines_busy_ns"] = engines_busy_json(nic);
  }
  // Messages as the kernel TCP tests count them: the client's, per QP.
  // The CPU's figures are over the whole run, --warmup's messages included.
  const std::uint64_t messages = (options.iterations + options.warmup) *
                                 (options.is_latency() ? 1 : options.qps) * options.sizes.size();
  const double measured_ns = to_ns(sim_now() - workload.measured_from());
  const std::string* side_names[2] = {&ends.client_name, &ends.server_name};
  // With --threads, each thread's core ("app_core" for thread 0, then
  // "app_core1"...): the node's figures are over all of them, and the line
  // below the table gives thread 0's as with one thread, then the total.
  nlohmann::json first_core[2];
  std::size_t cores[2] = {1, 1};
  for (std::size_t side = 0; side < 2; ++side) {
    const std::vector<const CpuCore*> all = workload.cores(side);
    cores[side] = all.size();
    std::vector<std::string> names;
    for (std::size_t t = 0; t < all.size(); ++t)
      names.push_back("app_core" + (t == 0 ? std::string() : std::to_string(t)));
    std::vector<NamedCore> named;
    for (std::size_t t = 0; t < all.size(); ++t) named.push_back({names[t].c_str(), all[t]});
    counters[*side_names[side]]["cpu"] = cpu_json(named, measured_ns, messages);
    if (all.size() > 1) {
      // Thread 0 drives QPs 0, N, 2N...: its share of the messages.
      const std::uint64_t own_qps = (options.qps + all.size() - 1) / all.size();
      first_core[side] =
          cpu_json({{"app_core", all.front()}}, measured_ns,
                   (options.iterations + options.warmup) * own_qps * options.sizes.size());
    }
  }
  // The CPU per message, below the table as in the kernel TCP tests, in
  // topology order.
  for (std::size_t i = 0; i < testbed.node_count(); ++i) {
    const std::string& name = c.topology.nodes[i];
    if (i != ends.client && i != ends.server) continue;
    const std::size_t side = i == ends.client ? 0 : 1;
    report << (cores[side] > 1
                   ? format_cpu_line(name, first_core[side], counters[name]["cpu"], cores[side])
                   : format_cpu_line(name, counters[name]["cpu"]));
  }
  PerfResult result = std::move(workload.result());
  if (options.breakdown) report << format_breakdown(result.breakdowns);
  result.capture = std::move(capture);
  // Back to back: the cable's counters; on a switched topology the switches'.
  if (testbed.switched()) {
    counters["switches"] = statistics.at("switches");
  } else {
    counters["link"] = statistics.at("wires");
  }
  result.counters = counters;
  result.statistics = statistics;
  result.fault_trace = std::move(fault_trace);
  result.failure = std::move(failure);
  // Activations: our channels' and stages' own counts, plus the processes
  // that count themselves (transport units, DMA engines, root complexes).
  std::uint64_t activations = activity().total();
  std::uint64_t packets = 0;
  nlohmann::json blocks = nlohmann::json::object();
  for (std::size_t i = 0; i < testbed.node_count(); ++i) {
    Node& node = testbed.node(i);
    const TransportStats& transport = node.nic.transport.stats();
    const DmaEngineStats& dma = node.nic.dma_engine.stats();
    const pcie::PcieLinkStats& link = node.host.pcie.stats();
    activations += transport.activations + dma.activations + link.activations;
    packets += transport.request_packets;
    blocks[c.topology.nodes[i]] = {
        {"transport_activations", transport.activations},
        {"host_memory_bytes", node.host.memory.allocated_chunks() * HostMemory::kChunkBytes},
        {"dma_activations", dma.activations},
        {"dma_windows", dma.windows},
        {"dma_tlps", dma.tlps},
        {"root_complex_activations", link.activations},
        {"pcie_windows", link.windows}};
  }
  // Set-up sends no request packets: the rate after it is the data path's.
  const auto set_up_done = workload.set_up_done_wall();
  const double set_up_wall =
      set_up_done == std::chrono::steady_clock::time_point{}
          ? wall  // the run failed in set-up
          : std::clamp(std::chrono::duration<double>(set_up_done - started).count(), 0.0, wall);
  const double run_wall = wall - set_up_wall;
  result.speed = {
      {"wall_seconds", wall},
      {"set_up_wall_seconds", set_up_wall},
      {"request_packets", packets},
      {"request_packets_per_wall_second", wall > 0 ? packets / wall : 0.0},
      {"request_packets_per_wall_second_after_set_up", run_wall > 0 ? packets / run_wall : 0.0},
      {"activations", activations},
      {"delta_cycles", sc_core::sc_delta_count()},
      {"channel_wakes", activity().channel_wakes},
      {"stage_resumptions", activity().stage_resumptions},
      {"method_activations", activity().method_activations},
      {"activations_per_request_packet",
       packets > 0 ? static_cast<double>(activations) / packets : 0.0},
      {"blocks", blocks}};
  return result;
}

void write_perf_outputs(const perf::PerfOptions& options, const nlohmann::json& config,
                        const PerfResult& result, const std::filesystem::path& folder) {
  nlohmann::json document = options.is_latency()
                                ? perf::perf_json(options, config, result.latency)
                                : perf::perf_json(options, config, result.bandwidth);
  document["counters"] = result.counters;
  if (result.failure) document["failure"] = *result.failure;
  const std::string text = document.dump(2) + "\n";
  write_text(folder / "perf.json", text);
  write_text(folder / "speed.json", result.speed.dump(2) + "\n");
  write_text(folder / "statistics.json", result.statistics.dump(2) + "\n");
  if (result.fault_trace) write_text(folder / "faults.csv", *result.fault_trace);
  if (!result.breakdowns.empty()) {
    nlohmann::json sizes = nlohmann::json::array();
    nlohmann::json events = nlohmann::json::array();
    double offset_us = 0;
    for (const auto& [bytes, summary] : result.breakdowns) {
      sizes.push_back(breakdown_json(bytes, summary));
      add_trace_events(events, bytes, summary, offset_us);
      offset_us += (summary.first.empty() ? 0 : summary.first.back().mean_end_ns / 1000) + 1;
    }
    write_text(folder / "breakdown.json",
               nlohmann::json{{"test", perf::test_name(options.test)}, {"sizes", sizes}}.dump(2) +
                   "\n");
    write_text(folder / "breakdown_trace.json",
               nlohmann::json{{"traceEvents", events}, {"displayTimeUnit", "ns"}}.dump(1) + "\n");
  }
  if (options.json_path) write_text(*options.json_path, text);
  if (result.capture) {
    try {
      result.capture->commit();
    } catch (const packet::PcapError& e) {
      throw OutputError(e.path(), e.reason());
    }
  }
}

}  // namespace rnicsim
