#include "nic/ethernet/fabric_port.hpp"

#include <utility>

#include "common/activity.hpp"
#include "common/module_macros.hpp"
#include "formats/ip_fields.hpp"

namespace rnicsim {

RNICSIM_PROCESS_MODULE(FabricPort);

FabricPort::FabricPort(const sc_core::sc_module_name& name, const FabricPortConfig& config,
                       Channel<Transfer>& mac_tx)
    : sc_core::sc_module(name),
      mac("mac", config.mac, *this, [this](Transfer&& frame) { received(std::move(frame)); }),
      rx("rx", config.rx_buffer_bytes),
      config_(config),
      mac_tx_(mac_tx) {
  rx.set_take_handler([this] { check_buffer(); });
  mac.set_pause_handler([this](std::uint8_t paused) {
    paused_ = paused;
    update_holds();
  });
  mac.set_recheck([this] { check_buffer(); });
  SC_METHOD(pull);
  sensitive << mac_tx.data_event() << pull_event_;
  mac_tx.set_early_reader(this);
}

std::uint8_t FabricPort::priority_of(const Transfer& frame) const {
  const Bytes& bytes = *frame.bytes();
  return packet::frame_priority(bytes.data(), bytes.size(),
                                packet::ipv4_offset(bytes.data(), bytes.size()),
                                config_.dscp_classes);
}

// Moves frames from the NIC's transmit path into their priority's queue,
// in order, until the path is empty or the head's queue is full; true if
// it moved any.
bool FabricPort::fill() {
  bool moved = false;
  while (const Transfer* head = mac_tx_.peek()) {
    RingQueue<Transfer>& queue = queues_[priority_of(*head)];
    if (queue.size() >= 4 * config_.queue_frames) break;
    Transfer frame;
    mac_tx_.nb_pop(frame);
    queue.push_back(std::move(frame));
    moved = true;
  }
  return moved;
}

// Offered a frame as the NIC pushes it into an empty channel: one visible
// at once, with room in its queue, is what pull would take at this instant,
// so it is queued now and the MAC woken, without an activation of pull.
bool FabricPort::take_early(Transfer& frame, const sc_core::sc_time& visible,
                            sc_core::sc_time& taken_at) {
  if (visible != sim_now()) return false;
  RingQueue<Transfer>& queue = queues_[priority_of(frame)];
  if (queue.size() >= 4 * config_.queue_frames) return false;
  taken_at = visible;
  queue.push_back(std::move(frame));
  update_holds();
  mac.wake_transmit();
  return true;
}

bool FabricPort::waiting() const {
  for (const RingQueue<Transfer>& queue : queues_) {
    if (!queue.empty()) return true;
  }
  return false;
}

void FabricPort::pull() {
  ++activity().method_activations;
  if (fill()) {
    update_holds();
    mac.wake_transmit();
  }
}

void FabricPort::update_holds() {
  std::uint8_t held = static_cast<std::uint8_t>(held_ | paused_);
  for (unsigned p = 0; p < packet::kPfcPriorities; ++p) {
    const std::uint8_t bit = static_cast<std::uint8_t>(1u << p);
    const std::size_t frames = queues_[p].size();
    if (frames >= config_.queue_frames) held = static_cast<std::uint8_t>(held | bit);
    if (frames <= config_.queue_frames / 2 && !(paused_ & bit)) {
      held = static_cast<std::uint8_t>(held & ~bit);
    }
  }
  if (held == held_) return;
  held_ = held;
  if (hold_handler_) hold_handler_(held_);
}

bool FabricPort::next_frame(std::uint8_t paused, Transfer& frame) {
  if (fill()) update_holds();
  for (int p = static_cast<int>(packet::kPfcPriorities) - 1; p >= 0; --p) {
    RingQueue<Transfer>& queue = queues_[static_cast<std::size_t>(p)];
    if (queue.empty() || ((paused >> p) & 1u)) continue;
    frame = std::move(queue.front());
    queue.pop_front();
    update_holds();
    // A place freed: frames the full queue held back in the channel may
    // move on. (An empty channel, asked by fill, has armed its data event.)
    if (mac_tx_.peek() != nullptr) pull_event_.notify(sc_core::SC_ZERO_TIME);
    return true;
  }
  return false;
}

void FabricPort::received(Transfer&& frame) {
  const Bytes& bytes = *frame.bytes();
  const auto ip = packet::ipv4_offset(bytes.data(), bytes.size());
  if (ip && packet::ipv4_ecn(bytes.data(), *ip) == packet::Ecn::kCe) {
    const packet::FiveTuple flow = packet::five_tuple(bytes.data(), bytes.size(), *ip);
    // The BTH follows the 8-byte UDP header; its destination QP is bytes 5-7.
    const std::size_t bth = *ip + 4u * (bytes[*ip] & 0x0F) + 8;
    if (flow.destination_port == packet::kRoceV2UdpPort && bytes.size() >= bth + 8) {
      ++stats_.ce_marked;
      ++ce_by_qp_[packet::load_be24(bytes.data() + bth + 5)];
    }
  }
  rx.push(std::move(frame), sc_core::SC_ZERO_TIME);
  check_buffer();
}

void FabricPort::check_buffer() {
  if (!config_.mac.pfc.enabled) return;
  // One buffer for every priority. The MAC's PFC unit compares it with XOFF
  // and XON and remembers what it asked of its peer: it sends only changes.
  mac.buffer_level(0xFF, rx.held_bytes());
}

const StatisticsTable<FabricPortStats>& fabric_port_statistics() {
  static const StatisticsTable<FabricPortStats> table(
      "fabric_port", {
                         {"ce_marked", "frames", &FabricPortStats::ce_marked,
                          "RoCEv2 frames received marked Congestion Experienced"},
                     });
  return table;
}

}  // namespace rnicsim
