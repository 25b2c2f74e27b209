#include "program/experiments/fabric/fabric_outputs.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <string>

#include "common/time_units.hpp"
#include "formats/headers.hpp"
#include "formats/ip_fields.hpp"
#include "formats/opcodes.hpp"
#include "program/experiments/output_files.hpp"

namespace rnicsim {
namespace {

// Ethernet (14), IPv4 (20), UDP (8), BTH (12) and ICRC (4) around a
// packet's payload; FCS (4); preamble and start delimiter (8) and the
// inter-packet gap (12); the smallest frame, FCS included (64).
constexpr std::uint64_t kRoceHeaderBytes = 14 + 20 + 8 + 12 + 4;
constexpr std::uint64_t kFcsBytes = 4;
constexpr std::uint64_t kPreambleAndGapBytes = 8 + 12;
constexpr std::uint64_t kMinFrameBytes = 64;
constexpr std::uint64_t kRethBytes = 16;
constexpr std::uint64_t kAethBytes = 4;

// The RoCEv2 payload bytes a frame carries (0 for anything else).
std::uint64_t roce_payload(const Bytes& frame) {
  const auto ip = packet::ipv4_offset(frame.data(), frame.size());
  if (!ip) return 0;
  const std::size_t ihl = 4u * (frame[*ip] & 0x0F);
  const std::size_t bth = *ip + ihl + 8;
  if (frame.size() < bth + 12) return 0;
  if (packet::load_be16(frame.data() + *ip + ihl + 2) != packet::kRoceV2UdpPort) return 0;
  const packet::OpcodeInfo* info = packet::find_opcode(frame[bth]);
  if (info == nullptr) return 0;
  const std::size_t total = packet::load_be16(frame.data() + *ip + 2);
  const std::size_t pad = (frame[bth + 1] >> 4) & 3;
  const std::size_t around = ihl + 8 + 12 + info->ext_header_bytes() + pad + 4;
  return total > around ? total - around : 0;
}

std::string end_name(const Topology& t, const CableEnd& e) {
  return e.is_switch ? t.switches[e.index] + ":" + std::to_string(e.port) : t.nodes[e.index];
}

std::string csv_row(std::initializer_list<std::string> cells) {
  std::string row;
  for (const std::string& c : cells) row += (row.empty() ? "" : ",") + c;
  return row + "\n";
}

std::string text(std::uint64_t v) { return std::to_string(v); }
std::string us(std::uint64_t ns) { return number_text(static_cast<double>(ns) / 1000); }

}  // namespace

std::uint64_t message_wire_bytes(FlowVerb verb, std::uint64_t bytes, std::uint32_t mtu) {
  const std::uint64_t packets = std::max<std::uint64_t>(1, (bytes + mtu - 1) / mtu);
  std::uint64_t wire = 0;
  for (std::uint64_t j = 0; j < packets; ++j) {
    const std::uint64_t payload = std::min<std::uint64_t>(mtu, bytes - std::min(bytes, j * mtu));
    const bool first = j == 0;
    const bool last = j + 1 == packets;
    std::uint64_t ext = 0;
    if (verb == FlowVerb::kWrite && first) ext = kRethBytes;
    if (verb == FlowVerb::kRead && (first || last)) ext = kAethBytes;
    const std::uint64_t pad = (4 - payload % 4) % 4;
    const std::uint64_t frame =
        std::max(kMinFrameBytes, kRoceHeaderBytes + ext + payload + pad + kFcsBytes);
    wire += frame + kPreambleAndGapBytes;
  }
  return wire;
}

FabricSeries::FabricSeries(const std::filesystem::path& folder, Testbed& testbed,
                           const Topology& topology, const TrafficConfig& traffic)
    : testbed_(testbed),
      topology_(topology),
      traffic_(traffic),
      throughput_path_(folder / "throughput.csv"),
      queues_path_(folder / "queues.csv"),
      throughput_(throughput_path_),
      queues_(queues_path_) {
  throughput_ << "time_us,flow,gbps\n";
  queues_ << "time_us,port,class,bytes\n";
  for (std::size_t n = 0; n < testbed.node_count(); ++n) {
    if (!testbed.node(n).nic.transport.rate_limiters().enabled()) continue;
    rates_path_ = folder / "rates.csv";
    rates_.open(rates_path_);
    rates_ << "time_us,node,qpn,rate_gbps,target_gbps,alpha\n";
    break;
  }
  // The switch ports with a cable, in switch and port order: the others never queue.
  for (const FabricCable& cable : topology.cables) {
    for (const CableEnd& end : cable.ends) {
      if (end.is_switch) watched_.push_back(Watched{end.index, end.port, {}});
    }
  }
  std::sort(watched_.begin(), watched_.end(), [](const Watched& a, const Watched& b) {
    return a.sw != b.sw ? a.sw < b.sw : a.port < b.port;
  });
}

void FabricSeries::set_workload(const FabricWorkload* workload) {
  workload_ = workload;
  last_delivered_.assign(workload->flow_count(), 0);
  window_start_.assign(workload->flow_count(), 0);
  window_end_.assign(workload->flow_count(), 0);
}

void FabricSeries::sample(std::uint64_t time_ns) {
  const double bin_ns = static_cast<double>(time_ns - last_time_ns_);
  if (bin_ns <= 0) return;
  const std::string time_us = number_text(static_cast<double>(time_ns) / 1000);
  bool all_active = true;
  for (std::size_t i = 0; i < last_delivered_.size(); ++i) {
    const FlowOutcome& f = workload_->flow(i);
    const bool started = traffic_.flows[i].start_ns < time_ns;
    const bool over = f.finished && f.finish_ns <= last_time_ns_;
    if (!started || f.finished) all_active = false;
    if (!started || over) continue;
    const std::uint64_t delta = f.delivered_bytes - last_delivered_[i];
    last_delivered_[i] = f.delivered_bytes;
    throughput_ << time_us << ',' << i << ','
                << number_text(static_cast<double>(delta) * 8 / bin_ns) << '\n';
  }
  // The flows' shares are measured over the bins in which every flow runs.
  if (all_active) {
    if (!window_open_) {
      window_open_ = true;
      window_from_ns_ = time_ns;
      for (std::size_t i = 0; i < window_start_.size(); ++i) {
        window_start_[i] = workload_->flow(i).delivered_bytes;
      }
    }
    window_to_ns_ = time_ns;
    for (std::size_t i = 0; i < window_end_.size(); ++i) {
      window_end_[i] = workload_->flow(i).delivered_bytes;
    }
  }
  std::uint64_t queued = 0;
  for (Watched& w : watched_) {
    const Switch& sw = testbed_.switch_at(w.sw);
    for (std::size_t c = 0; c < kTrafficClasses; ++c) {
      const std::uint64_t bytes = sw.queue_bytes(w.port, c);
      queued += bytes;
      // A queue is written while it holds bytes, and once more as it empties.
      if (bytes > 0 || w.last[c] > 0) {
        queues_ << time_us << ',' << topology_.switches[w.sw] << ':' << w.port << ',' << c << ','
                << bytes << '\n';
      }
      w.last[c] = bytes;
    }
  }
  if (rates_.is_open()) {
    sample_rates(time_us);
    for (std::size_t n = 0; n < testbed_.node_count() && !cut_seen_; ++n) {
      if (testbed_.node(n).nic.transport.rate_limiters().stats().rp_cnp_handled > 0) {
        cut_seen_ = true;
        first_cut_ns_ = time_ns;
      }
    }
    if (cut_seen_ && !drained_ && queued <= least_kmax()) {
      drained_ = true;
      drained_ns_ = time_ns;
    }
    if (drained_) queued_peak_after_drain_ = std::max(queued_peak_after_drain_, queued);
    if (all_active) {
      queued_sum_all_run_ += queued;
      ++samples_all_run_;
    }
  }
  last_time_ns_ = time_ns;
}

std::uint64_t FabricSeries::least_kmax() const {
  std::uint64_t least = std::numeric_limits<std::uint64_t>::max();
  for (std::size_t s = 0; s < testbed_.switch_count(); ++s)
    least = std::min(least, testbed_.switch_at(s).config().ecn.kmax_bytes);
  return least;
}

nlohmann::json FabricSeries::dcqcn_summary() const {
  if (!rates_path_.has_filename()) return nullptr;
  std::uint64_t sent = 0, handled = 0, ignored = 0, marked = 0;
  for (std::size_t n = 0; n < testbed_.node_count(); ++n) {
    const Nic& nic = testbed_.node(n).nic;
    sent += nic.notification_point.stats().np_cnp_sent;
    marked += nic.notification_point.stats().np_ecn_marked_roce_packets;
    handled += nic.transport.rate_limiters().stats().rp_cnp_handled;
    ignored += nic.transport.rate_limiters().stats().rp_cnp_ignored;
  }
  nlohmann::json out = {{"np_ecn_marked_roce_packets", marked},
                        {"np_cnp_sent", sent},
                        {"rp_cnp_handled", handled},
                        {"rp_cnp_ignored", ignored},
                        {"first_cut_us", nullptr},
                        {"drained_us", nullptr},
                        {"queued_peak_after_drain_bytes", queued_peak_after_drain_},
                        {"queued_mean_while_all_run_bytes",
                         samples_all_run_ > 0 ? static_cast<double>(queued_sum_all_run_) /
                                                    static_cast<double>(samples_all_run_)
                                              : 0.0}};
  if (cut_seen_) out["first_cut_us"] = static_cast<double>(first_cut_ns_) / 1000;
  if (drained_) out["drained_us"] = static_cast<double>(drained_ns_) / 1000;
  return out;
}

void FabricSeries::sample_rates(const std::string& time_us) {
  const std::uint64_t now_ps = to_ps(sim_now());
  for (std::size_t n = 0; n < testbed_.node_count(); ++n) {
    testbed_.node(n).nic.transport.rate_limiters().each_limiter(
        now_ps, [&](std::uint32_t qpn, const RateLimiterState& rp) {
          const std::pair<double, double> rates{static_cast<double>(rp.rate_bps),
                                                static_cast<double>(rp.target_bps)};
          auto [it, added] = last_rates_.try_emplace({n, qpn}, rates);
          if (!added && it->second == rates) return;
          it->second = rates;
          rates_ << time_us << ',' << topology_.nodes[n] << ',' << qpn << ','
                 << number_text(rates.first / 1e9) << ',' << number_text(rates.second / 1e9) << ','
                 << number_text(static_cast<double>(rp.alpha) / kAlphaOne) << '\n';
        });
  }
}

void FabricSeries::close() {
  throughput_.close();
  queues_.close();
  if (!throughput_) throw OutputError(throughput_path_, "write failed");
  if (!queues_) throw OutputError(queues_path_, "write failed");
  if (rates_.is_open()) {
    rates_.close();
    if (!rates_) throw OutputError(rates_path_, "write failed");
  }
}

std::vector<std::uint64_t> FabricSeries::window_bytes() const {
  std::vector<std::uint64_t> bytes;
  if (!window_open_ || window_to_ns_ == window_from_ns_) return bytes;
  for (std::size_t i = 0; i < window_start_.size(); ++i) {
    bytes.push_back(window_end_[i] - window_start_[i]);
  }
  return bytes;
}

ReceiverMeters::ReceiverMeters(Testbed& testbed, const Topology& topology)
    : meters_(testbed.node_count()), switched_(testbed.switched()) {
  for (std::size_t n = 0; testbed.switched() && n < testbed.node_count(); ++n) {
    const FabricCable& cable = topology.cable_of_node(n);
    const CableEnd& end = cable.ends[0].is_switch ? cable.ends[0] : cable.ends[1];
    PortMeter& meter = meters_[n];
    testbed.switch_at(end.index).port(end.port).add_tap(
        [&meter, gbps = cable.gbps](const Transfer& frame, const sc_core::sc_time& at) {
          const std::uint64_t payload = roce_payload(*frame.bytes());
          if (payload == 0) return;
          const std::uint64_t start = to_ps(at);
          if (meter.data_frames == 0) meter.first_bit_ps = start;
          ++meter.data_frames;
          meter.payload_bytes += payload;
          const std::uint64_t wire_bits =
              8 * (std::max<std::uint64_t>(frame.size_bytes() + kFcsBytes, kMinFrameBytes) +
                   kPreambleAndGapBytes);
          meter.last_end_ps = start + to_ps(serialization_time(wire_bits, gbps));
        });
  }
}

nlohmann::json ReceiverMeters::summary(const TrafficConfig& traffic, const FabricWorkload& workload,
                                       const Topology& topology) const {
  nlohmann::json receivers = nlohmann::json::array();
  for (std::size_t n = 0; switched_ && n < meters_.size(); ++n) {
    const PortMeter& m = meters_[n];
    if (m.data_frames == 0) continue;
    // The rule: the port's line rate times payload over wire bytes of the
    // messages whose data this node receives.
    std::uint64_t payload = 0, wire = 0;
    for (std::size_t i = 0; i < traffic.flows.size(); ++i) {
      const FlowSpec& f = traffic.flows[i];
      if (f.data_receiver() != n) continue;
      payload += f.bytes * f.messages;
      wire += message_wire_bytes(f.verb, f.bytes, workload.flow(i).mtu) * f.messages;
    }
    const double gbps = topology.cable_of_node(n).gbps;
    const double rule =
        wire > 0 ? gbps * static_cast<double>(payload) / static_cast<double>(wire) : 0;
    const double busy_ps = static_cast<double>(m.last_end_ps - m.first_bit_ps);
    const double measured =
        busy_ps > 0 ? static_cast<double>(m.payload_bytes) * 8 * 1000 / busy_ps : 0;
    receivers.push_back(
        {{"node", topology.nodes[n]},
         {"payload_bytes", m.payload_bytes},
         {"data_frames", m.data_frames},
         {"first_bit_us", static_cast<double>(m.first_bit_ps - workload.time_zero_ps()) / 1e6},
         {"last_end_us", static_cast<double>(m.last_end_ps - workload.time_zero_ps()) / 1e6},
         {"payload_gbps", measured},
         {"rule_gbps", rule},
         {"payload_over_rule", rule > 0 ? measured / rule : 0.0}});
  }
  return receivers;
}

FlowTotals write_flows_csv(const std::filesystem::path& folder, const TrafficConfig& traffic,
                           const FabricWorkload& workload, const Topology& topology) {
  std::string flows = csv_row({"flow", "source", "destination", "verb", "bytes", "messages", "qps",
                               "priority", "mtu", "start_us", "finish_us", "fct_us", "goodput_gbps",
                               "retransmitted_packets", "ce_marked_packets"});
  FlowTotals totals;
  std::vector<double> goodput(traffic.flows.size());
  for (std::size_t i = 0; i < traffic.flows.size(); ++i) {
    const FlowSpec& f = traffic.flows[i];
    const FlowOutcome& o = workload.flow(i);
    const std::uint64_t bytes = f.bytes * f.messages;
    const std::uint64_t fct = o.finish_ns - o.start_ns;
    goodput[i] = fct > 0 ? static_cast<double>(bytes) * 8 / static_cast<double>(fct) : 0;
    totals.bytes += bytes;
    totals.retransmitted += o.retransmitted_packets;
    totals.makespan_ns = std::max(totals.makespan_ns, o.finish_ns);
    flows +=
        csv_row({text(i), topology.nodes[f.source], topology.nodes[f.destination],
                 to_string(f.verb), text(f.bytes), text(f.messages), text(f.qps), text(f.priority),
                 text(o.mtu), us(o.start_ns), us(o.finish_ns), us(fct), number_text(goodput[i]),
                 text(o.retransmitted_packets), text(o.ce_marked_packets)});
  }
  write_text(folder / "flows.csv", flows);

  return totals;
}

PortTotals write_ports_csv(const std::filesystem::path& folder, const Testbed& testbed,
                           const Topology& topology) {
  std::map<std::pair<std::size_t, std::size_t>, std::string> neighbour;  // (switch, port) -> name
  for (const FabricCable& cable : topology.cables) {
    for (int e = 0; e < 2; ++e) {
      if (cable.ends[e].is_switch) {
        neighbour[{cable.ends[e].index, cable.ends[e].port}] =
            end_name(topology, cable.ends[1 - e]);
      }
    }
  }
  std::string ports = csv_row({"port", "neighbour", "frames_sent", "bytes_sent", "frames_received",
                               "pause_frames_sent", "pause_frames_received", "paused_us",
                               "ecn_marked", "dropped", "peak_queue_bytes"});
  PortTotals t;
  const auto paused_ns = [](const MacPort& mac) {
    double most = 0;
    for (unsigned p = 0; p < packet::kPfcPriorities; ++p) {
      most = std::max(most, to_ns(mac.priority_stats(p).paused));
    }
    return most;
  };
  for (std::size_t s = 0; s < testbed.switch_count(); ++s) {
    const Switch& sw = testbed.switch_at(s);
    t.headroom_peak = std::max(t.headroom_peak, sw.headroom_peak_bytes());
    for (std::size_t p = 0; p < sw.port_count(); ++p) {
      const auto it = neighbour.find({s, p});
      if (it == neighbour.end()) continue;  // no cable
      const MacPortStats& mac = sw.port(p).stats();
      std::uint64_t dropped = 0, marked = 0, peak = 0;
      for (std::size_t k = 0; k < kTrafficClasses; ++k) {
        const SwitchQueueStats& q = sw.queue_stats(p, k);
        dropped += q.dropped_dynamic_threshold + q.dropped_buffer_full + q.dropped_headroom +
                   q.dropped_red;
        marked += q.ecn_marked;
        peak = std::max(peak, q.peak_bytes);
      }
      t.drops += dropped;
      t.marks += marked;
      t.pause_frames += mac.pause_frames_sent;
      t.queue_peak = std::max(t.queue_peak, peak);
      ports +=
          csv_row({topology.switches[s] + ":" + text(p), it->second, text(mac.frames_sent),
                   text(mac.bytes_sent), text(mac.frames_received), text(mac.pause_frames_sent),
                   text(mac.pause_frames_received), number_text(paused_ns(sw.port(p)) / 1000),
                   text(marked), text(dropped), text(peak), "0"});
    }
  }
  for (std::size_t n = 0; testbed.switched() && n < testbed.node_count(); ++n) {
    const FabricPort& port = testbed.port_of(n);
    const MacPortStats& mac = port.mac.stats();
    const ReceiveBufferStats& rx = port.rx.stats();
    t.drops += rx.dropped;
    t.pause_frames += mac.pause_frames_sent;
    ports += csv_row({topology.nodes[n],
                      end_name(topology,
                               [&] {
                                 const FabricCable& cable = topology.cable_of_node(n);
                                 return cable.ends[0].is_switch ? cable.ends[0] : cable.ends[1];
                               }()),
                      text(mac.frames_sent), text(mac.bytes_sent), text(mac.frames_received),
                      text(mac.pause_frames_sent), text(mac.pause_frames_received),
                      number_text(paused_ns(port.mac) / 1000), text(port.stats().ce_marked),
                      text(rx.dropped), text(rx.peak_bytes),
                      text(testbed.node(n).nic.transport.stats().retransmitted_packets)});
  }
  write_text(folder / "ports.csv", ports);

  return t;
}

nlohmann::json share_summary(const FabricSeries& series) {
  nlohmann::json shares = nlohmann::json::object();
  const std::vector<std::uint64_t> window = series.window_bytes();
  if (!window.empty()) {
    std::uint64_t sum = 0;
    for (const std::uint64_t b : window) sum += b;
    double least = 1e300, most = 0, squares = 0, total = 0;
    for (const std::uint64_t b : window) {
      const double share = sum > 0 ? static_cast<double>(b) * static_cast<double>(window.size()) /
                                         static_cast<double>(sum)
                                   : 0;
      least = std::min(least, share);
      most = std::max(most, share);
      total += static_cast<double>(b);
      squares += static_cast<double>(b) * static_cast<double>(b);
    }
    shares = {{"window_us", static_cast<double>(series.window_ns()) / 1000},
              {"least_over_fair", least},
              {"most_over_fair", most},
              {"jain_index",
               squares > 0 ? total * total / (static_cast<double>(window.size()) * squares) : 0.0}};
  }
  return shares;
}

}  // namespace rnicsim
