#include "switch/switch.hpp"

#include <algorithm>
#include <memory>
#include <utility>

#include "common/activity.hpp"
#include "common/module_macros.hpp"
#include "common/time_units.hpp"
#include "formats/ip_fields.hpp"
#include "wire/wire_framing.hpp"

namespace rnicsim {

RNICSIM_PROCESS_MODULE(Switch);

namespace {

// The bytes a cut-through switch needs before it can route: Ethernet, a tag,
// IPv4 and the UDP ports, well inside a 64-byte minimum frame.
constexpr std::uint64_t kCutThroughHeaderBits = 64 * 8;

}  // namespace

packet::MacAddress Switch::port_address(std::size_t switch_index, std::size_t port) {
  return {0x02,
          0x5e,
          static_cast<std::uint8_t>(switch_index >> 8),
          static_cast<std::uint8_t>(switch_index),
          static_cast<std::uint8_t>(port >> 8),
          static_cast<std::uint8_t>(port)};
}

std::size_t Switch::cabled(const std::vector<SwitchPortSpec>& ports) {
  std::size_t n = 0;
  for (const SwitchPortSpec& port : ports) n += port.cabled ? 1 : 0;
  return n;
}

Switch::Port::Port(Switch& owner, std::uint16_t index, const MacPortConfig& mac_config,
                   const SwitchPortSpec& cable, const SchedulerConfig& scheduler)
    : spec(cable),
      address(mac_config.address),
      egress(owner, index, scheduler),
      mac(("port" + std::to_string(index)).c_str(), mac_config, egress,
          [&owner, index](Transfer&& frame) { owner.ingress(index, std::move(frame)); }) {}

Switch::Switch(const sc_core::sc_module_name& name, const SwitchConfig& config,
               const std::vector<SwitchPortSpec>& ports, RouteTable routes, std::size_t index)
    : sc_core::sc_module(name),
      config_(config),
      routes_(std::move(routes)),
      buffer_(config.buffer, ports.size(), cabled(ports)),
      framing_(WireFraming::Kind::kFrame, roce_v2_write_only_ipv4()),
      random_(config.seed) {
  for (std::size_t i = 0; i < ports.size(); ++i) {
    MacPortConfig mac;
    mac.gbps = ports[i].gbps;
    mac.propagation = ports[i].propagation;
    mac.pfc = config.buffer.pfc;
    mac.address = port_address(index, i);
    ports_.push_back(std::make_unique<Port>(*this, static_cast<std::uint16_t>(i), mac, ports[i],
                                            config.scheduler));
  }
  SC_METHOD(forward);
  sensitive << forward_event_;
  dont_initialize();
}

void Switch::count_drop(std::uint16_t port, std::uint8_t traffic_class, DropCause cause) {
  SwitchQueueStats& s = ports_[port]->queue_stats[traffic_class];
  switch (cause) {
    case DropCause::kDynamicThreshold:
      ++s.dropped_dynamic_threshold;
      break;
    case DropCause::kBufferFull:
      ++s.dropped_buffer_full;
      break;
    case DropCause::kHeadroom:
      ++s.dropped_headroom;
      break;
    case DropCause::kNone:
      break;
  }
}

void Switch::ingress(std::uint16_t in_port, Transfer&& frame) {
  const sc_core::sc_time now = sim_now();
  const Bytes& bytes = *frame.bytes();
  Port& in = *ports_[in_port];
  const std::optional<std::size_t> ip = packet::ipv4_offset(bytes.data(), bytes.size());
  if (!ip) {
    ++in.ingress_stats.dropped_not_ip;
    return;
  }
  const std::uint8_t priority =
      packet::frame_priority(bytes.data(), bytes.size(), ip, config_.dscp_classes);
  const int out = routes_.select(packet::five_tuple(bytes.data(), bytes.size(), *ip));
  if (out < 0) {
    ++in.ingress_stats.dropped_no_route;
    return;
  }
  if (packet::ipv4_ttl(bytes.data(), *ip) <= 1) {
    ++in.ingress_stats.dropped_ttl;
    return;
  }
  const auto out_port = static_cast<std::uint16_t>(out);
  const BufferManager::Admission admission = buffer_.admit(
      in_port, priority, out_port, priority, static_cast<std::uint32_t>(bytes.size()));
  update_pause(in_port, priority);
  if (admission.drop != DropCause::kNone) {
    count_drop(out_port, priority, admission.drop);
    return;
  }
  // A frame someone else still holds (a capture's tap, say) is theirs too:
  // the switch rewrites a copy. One it holds alone it rewrites in place.
  Port& egress = *ports_[out_port];
  if (frame.bytes().use_count() == 1) {
    Bytes& own = const_cast<Bytes&>(bytes);
    packet::forward_ipv4(own.data(), *ip, egress.address, egress.spec.neighbour);
  } else {
    auto copy = std::make_shared<Bytes>(bytes);
    packet::forward_ipv4(copy->data(), *ip, egress.address, egress.spec.neighbour);
    frame.set_bytes(std::move(copy));
  }

  sc_core::sc_time ready = now + config_.forwarding;
  if (config_.cut_through) {
    // On the cable a frame is its preamble, its bytes, FCS and gap (the
    // MACs' framing): its first bit went in_time before its last arrived,
    // and its header is in once the preamble and 64 bytes are.
    const std::uint64_t framed_bits = framing_.wire_bits(frame.size_bits());
    const sc_core::sc_time in_time = serialization_time(framed_bits, in.spec.gbps);
    const sc_core::sc_time header_in = serialization_time(
        kCutThroughHeaderBits + 8ULL * WireFraming::kPreambleSfdBytes, in.spec.gbps);
    const sc_core::sc_time out_time = serialization_time(framed_bits, egress.spec.gbps);
    // From the header's arrival, but never so early that the frame would
    // leave faster than it comes in.
    const sc_core::sc_time header_at = now - in_time + header_in;
    const sc_core::sc_time last_bit_bound = now > out_time ? now - out_time : sc_core::SC_ZERO_TIME;
    ready = std::max(header_at, last_bit_bound) + config_.forwarding;
  }
  const bool first = pending_.empty() || ready < pending_.top().ready;
  pending_.push(Pending{ready, pending_order_++, Held{std::move(frame), admission.charge}});
  if (first) forward_event_.notify(ready - now);
}

void Switch::forward() {
  ++activity().method_activations;
  const sc_core::sc_time now = sim_now();
  // Every frame ready now joins its queue before any port picks: a port's
  // scheduler chooses among all of them (strict priority, DWRR), as it would
  // if they had come in one by one.
  woken_.clear();
  while (!pending_.empty() && pending_.top().ready <= now) {
    // priority_queue's top is const; the entry is moved out just before pop.
    Held held = std::move(const_cast<Pending&>(pending_.top()).held);
    pending_.pop();
    const std::uint16_t port = held.charge.out_port;
    if (enqueue(std::move(held)) && std::find(woken_.begin(), woken_.end(), port) == woken_.end()) {
      woken_.push_back(port);
    }
  }
  for (const std::uint16_t port : woken_) ports_[port]->mac.wake_transmit();
  if (!pending_.empty()) forward_event_.notify(pending_.top().ready - now);
}

bool Switch::enqueue(Held&& held) {
  const BufferCharge& c = held.charge;
  Port& out = *ports_[c.out_port];
  SwitchQueueStats& stats = out.queue_stats[c.traffic_class];
  if (config_.ecn.enabled && ((config_.ecn_classes >> c.traffic_class) & 1u)) {
    // The depth the frame joins: the bytes queued ahead of it.
    const std::uint64_t depth = out.egress.queued_bytes[c.traffic_class];
    if (red_mark(config_.ecn, depth, random_)) {
      Bytes& bytes = const_cast<Bytes&>(*held.frame.bytes());  // the switch's own copy
      const std::size_t ip = *packet::ipv4_offset(bytes.data(), bytes.size());
      if (packet::mark_congestion_experienced(bytes.data(), ip)) {
        ++stats.ecn_marked;
      } else if (config_.red_drop_non_ect) {
        ++stats.dropped_red;
        buffer_.release(c);
        update_pause(c.in_port, c.priority);
        return false;
      }
    }
  }
  std::uint64_t& queued = out.egress.queued_bytes[c.traffic_class];
  queued += held.frame.size_bytes();
  stats.peak_bytes = std::max(stats.peak_bytes, queued);
  out.egress.queues[c.traffic_class].push_back(std::move(held));
  return true;
}

bool Switch::Egress::next_frame(std::uint8_t paused, Transfer& frame) {
  std::array<std::uint32_t, kTrafficClasses> heads{};
  for (std::size_t c = 0; c < kTrafficClasses; ++c) {
    if (!queues[c].empty())
      heads[c] = static_cast<std::uint32_t>(queues[c].front().frame.size_bytes());
  }
  const int c = scheduler.pick(heads, paused);
  if (c < 0) return false;
  Held held = std::move(queues[static_cast<std::size_t>(c)].front());
  queues[static_cast<std::size_t>(c)].pop_front();
  queued_bytes[static_cast<std::size_t>(c)] -= held.frame.size_bytes();
  SwitchQueueStats& stats = owner.ports_[index]->queue_stats[static_cast<std::size_t>(c)];
  ++stats.forwarded;
  stats.forwarded_bytes += held.frame.size_bytes();
  owner.buffer_.release(held.charge);
  owner.update_pause(held.charge.in_port, held.charge.priority);
  frame = std::move(held.frame);
  return true;
}

void Switch::update_pause(std::uint16_t in_port, std::uint8_t priority) {
  if (!config_.buffer.pfc.lossless(priority)) return;
  // The port's PFC unit compares the level with XOFF and XON and remembers
  // what it asked of its peer: it sends only changes.
  ports_[in_port]->mac.buffer_level(static_cast<std::uint8_t>(1u << priority),
                                    buffer_.pfc_level(in_port, priority));
}

std::uint64_t Switch::dropped() const {
  std::uint64_t n = 0;
  for (const auto& port : ports_) {
    for (const SwitchQueueStats& s : port->queue_stats) {
      n += s.dropped_dynamic_threshold + s.dropped_buffer_full + s.dropped_headroom + s.dropped_red;
    }
    n += port->ingress_stats.dropped_no_route + port->ingress_stats.dropped_ttl +
         port->ingress_stats.dropped_not_ip;
  }
  return n;
}

nlohmann::json Switch::statistics() const {
  nlohmann::json ports = nlohmann::json::object();
  for (std::size_t i = 0; i < ports_.size(); ++i) {
    const Port& port = *ports_[i];
    nlohmann::json entry = mac_port_statistics().values(port.mac.stats());
    entry.update(switch_ingress_statistics().values(port.ingress_stats));
    for (unsigned p = 0; p < kTrafficClasses; ++p) {
      entry["priority_" + std::to_string(p)] =
          mac_priority_statistics().values(port.mac.priority_stats(p));
      entry["class_" + std::to_string(p)] = switch_queue_statistics().values(port.queue_stats[p]);
    }
    ports[std::to_string(i)] = entry;
  }
  return {{"buffer_peak_bytes", buffer_.peak_bytes()},
          {"headroom_peak_bytes", buffer_.headroom_peak_bytes()},
          {"shared_pool_bytes", buffer_.shared_pool_bytes()},
          {"ports", ports}};
}

const StatisticsTable<SwitchQueueStats>& switch_queue_statistics() {
  static const StatisticsTable<SwitchQueueStats> table(
      "class_<c>",
      {
          {"forwarded", "frames", &SwitchQueueStats::forwarded, "frames this queue sent"},
          {"forwarded_bytes", "bytes", &SwitchQueueStats::forwarded_bytes, "their bytes"},
          {"dropped_dynamic_threshold", "frames", &SwitchQueueStats::dropped_dynamic_threshold,
           "lossy frames refused: the queue was at alpha x the free shared pool"},
          {"dropped_buffer_full", "frames", &SwitchQueueStats::dropped_buffer_full,
           "lossy frames refused: the shared pool was full"},
          {"dropped_headroom", "frames", &SwitchQueueStats::dropped_headroom,
           "lossless frames refused: their ingress's headroom was used up"},
          {"dropped_red", "frames", &SwitchQueueStats::dropped_red,
           "frames not ECN-capable dropped by RED (switch.non_ect_policy red_drop)"},
          {"ecn_marked", "frames", &SwitchQueueStats::ecn_marked, "frames marked CE"},
          {"peak_bytes", "bytes", &SwitchQueueStats::peak_bytes,
           "deepest the queue was (frames waiting to leave, not those still being forwarded)"},
      });
  return table;
}

const StatisticsTable<SwitchIngressStats>& switch_ingress_statistics() {
  static const StatisticsTable<SwitchIngressStats> table(
      "ports.<i>", {
                       {"dropped_no_route", "frames", &SwitchIngressStats::dropped_no_route,
                        "frames to an address the switch has no route for"},
                       {"dropped_ttl", "frames", &SwitchIngressStats::dropped_ttl,
                        "frames that arrived with TTL 1 or 0"},
                       {"dropped_not_ip", "frames", &SwitchIngressStats::dropped_not_ip,
                        "frames without an IPv4 header (MAC Control frames are the MAC's)"},
                   });
  return table;
}

}  // namespace rnicsim
