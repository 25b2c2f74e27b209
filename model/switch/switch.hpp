#pragma once
// Switch: an IP router with a shared buffer, built of three separate pieces:
//
//   ports[i] (wire/mac_port.hpp: MAC both ways, PFC)
//     --frame in--> forwarding: class from PCP or DSCP, route (ECMP by
//                   5-tuple hash), TTL and checksum, MACs rewritten
//     --admit-->    buffer manager (buffer_manager.hpp): reserve, shared
//                   pool under the dynamic threshold, headroom; XOFF/XON
//                   turn into pauses sent out of the ingress port
//     --after switch.forwarding_ns--> egress queue (port, class), ECN
//                   marked by the class's RED profile on the way in
//   ports[e] asks its queues for a frame when free: strict classes, then
//   DWRR (egress_scheduler.hpp), paused classes passed over.
//
// Drops are counted by port, class and cause; a pcap tap can see any port's
// frames as they leave (MacPort::add_tap).
#include <array>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <queue>
#include <random>
#include <string>
#include <systemc>
#include <vector>

#include "common/ring_queue.hpp"
#include "common/statistics.hpp"
#include "common/transfer.hpp"
#include "switch/buffer_manager.hpp"
#include "switch/egress_scheduler.hpp"
#include "switch/routing.hpp"
#include "switch/switch_config.hpp"
#include "wire/mac_port.hpp"
#include "wire/wire_framing.hpp"

namespace rnicsim {

struct SwitchPortSpec {
  bool cabled = false;  // a port without a cable takes no reserve or headroom
  double gbps = 100;
  sc_core::sc_time propagation;    // of the cable out of this port
  packet::MacAddress neighbour{};  // the destination MAC of frames forwarded out of it
};

// One egress queue's (port, class) counters.
struct SwitchQueueStats {
  std::uint64_t forwarded = 0;  // frames that left
  std::uint64_t forwarded_bytes = 0;
  std::uint64_t dropped_dynamic_threshold = 0;
  std::uint64_t dropped_buffer_full = 0;
  std::uint64_t dropped_headroom = 0;
  std::uint64_t dropped_red = 0;  // not ECN-capable, RED drop policy
  std::uint64_t ecn_marked = 0;
  std::uint64_t peak_bytes = 0;
};
const StatisticsTable<SwitchQueueStats>& switch_queue_statistics();

// An ingress port's frames dropped before they had an egress queue.
struct SwitchIngressStats {
  std::uint64_t dropped_no_route = 0;
  std::uint64_t dropped_ttl = 0;
  std::uint64_t dropped_not_ip = 0;
};
const StatisticsTable<SwitchIngressStats>& switch_ingress_statistics();

class Switch : public sc_core::sc_module {
 public:
  Switch(const sc_core::sc_module_name& name, const SwitchConfig& config,
         const std::vector<SwitchPortSpec>& ports, RouteTable routes, std::size_t index);

  std::size_t port_count() const { return ports_.size(); }
  MacPort& port(std::size_t i) { return ports_.at(i)->mac; }
  const MacPort& port(std::size_t i) const { return ports_.at(i)->mac; }
  const SwitchQueueStats& queue_stats(std::size_t port, std::size_t traffic_class) const {
    return ports_.at(port)->queue_stats[traffic_class];
  }
  std::uint64_t dropped() const;  // every frame dropped, any port, class and cause
  const SwitchConfig& config() const { return config_; }
  // Bytes waiting in egress queue (port, class) now: the depth RED sees and
  // queue_stats' peak_bytes tracks (frames still in the forwarding latency
  // are not in it yet).
  std::uint64_t queue_bytes(std::size_t port, std::size_t traffic_class) const {
    return ports_.at(port)->egress.queued_bytes[traffic_class];
  }
  std::uint64_t headroom_peak_bytes() const { return buffer_.headroom_peak_bytes(); }

  // {"buffer_peak_bytes", "ports": {"<i>": {mac, priority_<p>, class_<c>, ingress counters}}}
  nlohmann::json statistics() const;

  // The switch port's MAC address: 02:5e:<switch>:<switch>:<port>:<port>.
  static packet::MacAddress port_address(std::size_t switch_index, std::size_t port);
  static std::size_t cabled(const std::vector<SwitchPortSpec>& ports);

 private:
  struct Held {
    Transfer frame;
    BufferCharge charge;
  };
  struct Egress : TransmitQueues {
    Egress(Switch& of, std::uint16_t port, const SchedulerConfig& config)
        : owner(of), index(port), scheduler(config) {}
    bool next_frame(std::uint8_t paused, Transfer& frame) override;
    bool waiting() const override {
      for (const RingQueue<Held>& queue : queues) {
        if (!queue.empty()) return true;
      }
      return false;
    }
    Switch& owner;
    std::uint16_t index;
    EgressScheduler scheduler;
    std::array<RingQueue<Held>, kTrafficClasses> queues;
    // Bytes waiting in each class's queue: the depth RED sees. Frames still
    // in the forwarding latency hold buffer but are not in the queue yet.
    std::array<std::uint64_t, kTrafficClasses> queued_bytes{};
  };
  struct Port {
    Port(Switch& owner, std::uint16_t index, const MacPortConfig& mac_config,
         const SwitchPortSpec& spec, const SchedulerConfig& scheduler);
    SwitchPortSpec spec;
    packet::MacAddress address;
    Egress egress;
    MacPort mac;
    std::array<SwitchQueueStats, kTrafficClasses> queue_stats{};
    SwitchIngressStats ingress_stats;
  };
  // A frame between ingress and its egress queue, waiting out the forwarding latency.
  struct Pending {
    sc_core::sc_time ready;
    std::uint64_t order;
    Held held;
    bool operator<(const Pending& other) const {  // for a min-heap by (ready, order)
      return ready != other.ready ? ready > other.ready : order > other.order;
    }
  };

  void ingress(std::uint16_t in_port, Transfer&& frame);
  void forward();
  // Puts a frame in its egress queue (true), or drops it (RED); the caller
  // wakes the port.
  bool enqueue(Held&& held);
  void update_pause(std::uint16_t in_port, std::uint8_t priority);
  void count_drop(std::uint16_t port, std::uint8_t traffic_class, DropCause cause);

  SwitchConfig config_;
  RouteTable routes_;
  BufferManager buffer_;
  WireFraming framing_;  // the ports' framing, for cut-through's arithmetic
  std::vector<std::unique_ptr<Port>> ports_;
  std::priority_queue<Pending> pending_;
  std::uint64_t pending_order_ = 0;
  sc_core::sc_event forward_event_;
  std::vector<std::uint16_t> woken_;  // forward's ports to wake (kept: no allocation a call)
  std::mt19937_64 random_;
};

}  // namespace rnicsim
