#include "program/experiments/fabric/fabric_experiment.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <ostream>

#include "common/activity.hpp"
#include "common/run_progress.hpp"
#include "common/simulation.hpp"
#include "formats/ip_fields.hpp"
#include "program/experiments/fabric/fabric_outputs.hpp"
#include "program/experiments/fabric/fabric_workload.hpp"
#include "program/experiments/output_files.hpp"
#include "system/testbed.hpp"
#include "system/wire_capture.hpp"

namespace rnicsim {
namespace {

// The DSCP of priority `priority` under a node's table: the first that maps to it.
std::optional<std::uint8_t> dscp_of(const packet::DscpClasses& classes, std::uint8_t priority) {
  for (std::size_t d = 0; d < classes.size(); ++d) {
    if (classes[d] == priority) return static_cast<std::uint8_t>(d);
  }
  return std::nullopt;
}

// output.pcap_port, resolved against the topology before anything runs.
struct PcapPort {
  bool given = false;
  bool is_switch = false;
  std::size_t index = 0;  // the node, or the switch
  std::size_t port = 0;   // the switch's port
};

PcapPort pcap_port(config::RunConfig& run, const Topology& topology) {
  const config::Section output = run.section("output");
  const std::string name = output.text("pcap_port");
  PcapPort p;
  if (name.empty()) return p;
  p.given = true;
  const auto node = std::find(topology.nodes.begin(), topology.nodes.end(), name);
  if (node != topology.nodes.end()) {
    p.index = static_cast<std::size_t>(node - topology.nodes.begin());
    return p;
  }
  const std::size_t colon = name.find(':');
  const auto sw =
      std::find(topology.switches.begin(), topology.switches.end(), name.substr(0, colon));
  if (sw != topology.switches.end() && colon != std::string::npos) {
    p.is_switch = true;
    p.index = static_cast<std::size_t>(sw - topology.switches.begin());
    const std::string number = name.substr(colon + 1);
    const bool digits =
        !number.empty() && number.size() < 6 &&
        std::all_of(number.begin(), number.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
    if (digits && std::stoul(number) < topology.switch_ports[p.index]) {
      p.port = std::stoul(number);
      return p;
    }
  }
  const std::string key = output.path("pcap_port");
  throw config::ConfigError(run.loaded().source_of(key), key,
                            "\"" + name +
                                "\" is neither a node nor a switch's port (\"s1:3\", from 0 to "
                                "switch.ports minus one)");
}

}  // namespace

void declare_fabric_keys(config::Schema& schema) {
  declare_traffic_keys(schema);
  schema.add(config::string_key("output.pcap_port", "",
                                "fabric: the port whose frames go to capture.pcap, \"s1:3\" "
                                "(a switch's port) or a node's name (its NIC's); empty: none"));
}

void run_fabric(config::RunConfig& run, const std::function<void()>& configured,
                const std::filesystem::path& folder, std::ostream& report, std::ostream* terminal) {
  TestbedRequest request;
  request.host_software = true;
  request.verbs = true;
  const TestbedConfig c = testbed_config(run, request);
  const TrafficConfig traffic = traffic_config(run, c.topology);
  // Each flow's traffic class: the DSCP its priority has. Both ends' QPs
  // carry it, so both nodes' tables must map it first to that priority.
  std::vector<std::uint8_t> traffic_classes;
  for (const FlowSpec& f : traffic.flows) {
    std::uint8_t dscp = static_cast<std::uint8_t>(f.priority << 3);
    if (c.topology.switched()) {
      const std::optional<std::uint8_t> at_source =
          dscp_of(c.node_ports[f.source].dscp_classes, f.priority);
      const std::optional<std::uint8_t> at_destination =
          dscp_of(c.node_ports[f.destination].dscp_classes, f.priority);
      const auto refuse = [&](const std::string& reason) {
        throw config::ConfigError(run.loaded().source_of(f.key), f.key,
                                  "priority " + std::to_string(f.priority) + ": " + reason);
      };
      for (const auto& [node, d] :
           {std::pair{f.source, at_source}, std::pair{f.destination, at_destination}}) {
        if (!d) {
          refuse("qos.dscp_classes of node \"" + c.topology.nodes[node] + "\" maps no DSCP to it");
        }
      }
      if (*at_source != *at_destination) {
        refuse("its first DSCP is " + std::to_string(*at_source) + " on \"" +
               c.topology.nodes[f.source] + "\" but " + std::to_string(*at_destination) + " on \"" +
               c.topology.nodes[f.destination] +
               "\" (qos.dscp_classes); a flow's QPs carry one traffic class");
      }
      dscp = *at_source;
    }
    traffic_classes.push_back(static_cast<std::uint8_t>(dscp << 2));
  }
  const PcapPort pcap = pcap_port(run, c.topology);
  configured();
  Testbed testbed("testbed", c);
  std::unique_ptr<WireCapture> capture;
  if (pcap.given) {
    capture = std::make_unique<WireCapture>(folder / "capture.pcap");
    if (pcap.is_switch) {
      capture->tap(testbed.switch_at(pcap.index).port(pcap.port));
    } else if (testbed.switched()) {
      capture->tap(testbed.port_of(pcap.index).mac);
    } else {
      // Back to back: what the node sends is on the wire into its peer.
      capture->tap(testbed.wire_to(c.topology.peer_of(pcap.index)));
    }
  }
  ReceiverMeters meters(testbed, c.topology);
  FabricSeries series(folder, testbed, c.topology, traffic);
  RunProgress progress(terminal);
  FabricWorkload workload("fabric", testbed, traffic, traffic_classes, progress,
                          [&series](std::uint64_t t) { series.sample(t); });
  series.set_workload(&workload);
  std::uint64_t messages = 0;
  for (const FlowSpec& f : traffic.flows) messages += f.messages;
  progress.start("messages", messages);
  reset_activity();
  const auto started = std::chrono::steady_clock::now();
  simulate_workload(traffic.flows.size());
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  progress.finish();
  series.close();

  const FlowTotals flows = write_flows_csv(folder, traffic, workload, c.topology);
  const PortTotals ports = write_ports_csv(folder, testbed, c.topology);
  const nlohmann::json receivers = meters.summary(traffic, workload, c.topology);
  // The simulator's own speed, counted as the perf experiment counts it: our
  // channels', stages' and methods' activations, plus the processes that
  // count themselves (transport units, DMA engines, root complexes).
  std::uint64_t request_packets = 0;
  std::uint64_t activations = activity().total();
  for (std::size_t n = 0; n < testbed.node_count(); ++n) {
    Node& node = testbed.node(n);
    request_packets += node.nic.transport.stats().request_packets;
    activations += node.nic.transport.stats().activations +
                   node.nic.dma_engine.stats().activations + node.host.pcie.stats().activations;
  }
  nlohmann::json summary = {
      {"flows", traffic.flows.size()},
      {"bytes", flows.bytes},
      {"makespan_us", static_cast<double>(flows.makespan_ns) / 1000},
      {"aggregate_goodput_gbps", flows.makespan_ns > 0 ? static_cast<double>(flows.bytes) * 8 /
                                                             static_cast<double>(flows.makespan_ns)
                                                       : 0.0},
      {"retransmitted_packets", flows.retransmitted},
      {"dropped_frames", ports.drops},
      {"pause_frames", ports.pause_frames},
      {"ecn_marked", ports.marks},
      {"headroom_peak_bytes", ports.headroom_peak},
      {"queue_peak_bytes", ports.queue_peak},
      {"shares_while_all_run", share_summary(series)},
      {"receivers", receivers}};
  nlohmann::json dcqcn = series.dcqcn_summary();
  if (!dcqcn.is_null()) summary["dcqcn"] = std::move(dcqcn);
  write_text(folder / "summary.json", summary.dump(2) + "\n");
  write_text(folder / "statistics.json", testbed.statistics().dump(2) + "\n");
  const nlohmann::json speed = {
      {"wall_seconds", wall},
      {"request_packets", request_packets},
      {"request_packets_per_wall_second", wall > 0 ? request_packets / wall : 0.0},
      {"activations", activations},
      {"activations_per_request_packet",
       request_packets > 0 ? static_cast<double>(activations) / request_packets : 0.0},
      {"channel_wakes", activity().channel_wakes},
      {"stage_resumptions", activity().stage_resumptions},
      {"method_activations", activity().method_activations},
      {"delta_cycles", sc_core::sc_delta_count()}};
  write_text(folder / "speed.json", speed.dump(2) + "\n");
  if (capture) {
    try {
      capture->commit();
    } catch (const packet::PcapError& e) {
      throw OutputError(e.path(), e.reason());
    }
  }
  report << traffic.flows.size() << " flows, " << flows.bytes << " bytes in "
         << number_text(static_cast<double>(flows.makespan_ns) / 1000)
         << " us: " << number_text(summary["aggregate_goodput_gbps"].get<double>()) << " Gbit/s; "
         << flows.retransmitted << " retransmitted, " << ports.drops << " dropped, "
         << ports.pause_frames << " pause frames, " << ports.marks << " marked\n";
  for (const auto& r : receivers) {
    report << r["node"].get<std::string>() << " received at "
           << number_text(r["payload_gbps"].get<double>()) << " Gbit/s of payload ("
           << number_text(r["payload_over_rule"].get<double>()) << " of the line-rate rule)\n";
  }
}

}  // namespace rnicsim
