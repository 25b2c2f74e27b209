// Received packets to the responder or the completer.
#include "nic/transport/receive_demux.hpp"

#include <algorithm>
#include <stdexcept>

#include "common/activity.hpp"
#include "common/message_breakdown.hpp"
#include "common/simulation.hpp"
#include "common/time_units.hpp"
#include "formats/opcodes.hpp"

namespace rnicsim {

ReceiveDemux::ReceiveDemux(const sc_core::sc_module_name& name, std::size_t queue_items,
                           const sc_core::sc_time& latency, TransportShared& shared,
                           NotificationPoint& notification_point)
    : sc_core::sc_module(name),
      in("in"),
      requests("requests", queue_items),
      responses("responses", queue_items),
      shared_(shared),
      notification_point_(notification_point),
      latency_(latency) {
  SC_METHOD(run);
}

void ReceiveDemux::end_of_elaboration() {
  if (auto* source = dynamic_cast<EarlyTakeSourceIf<packet::ReceivedPacket>*>(in.get_interface())) {
    source->set_early_reader(this);
  }
}

namespace {

constexpr std::uint8_t kCnpOpcode = 0x81;

bool marked_ce(const packet::RocePacket& packet) {
  constexpr std::uint8_t kCe = 3;  // RFC 3168
  if (const auto* ipv4 = std::get_if<packet::Ipv4Header>(&packet.ip)) return (ipv4->tos & 3) == kCe;
  return (std::get<packet::Ipv6Header>(packet.ip).traffic_class & 3) == kCe;
}

// The packets whose marks the notification point answers: requests and READ
// responses (not ACKs, atomic ACKs or CNPs).
bool carries_data_or_request(std::uint8_t opcode) {
  return opcode <= 0x10 || opcode == 0x13 || opcode == 0x14;
}

}  // namespace

bool ReceiveDemux::for_congestion_control(const packet::ReceivedPacket& packet) const {
  const std::uint8_t opcode = packet.packet.bth.opcode;
  return opcode == kCnpOpcode || (notification_point_.enabled() && marked_ce(packet.packet) &&
                                  carries_data_or_request(opcode));
}

bool ReceiveDemux::congestion_control_took(const packet::ReceivedPacket& packet) {
  if (!for_congestion_control(packet)) return false;
  const packet::Bth& bth = packet.packet.bth;
  if (bth.opcode == kCnpOpcode) {
    const QpContext* qp = shared_.contexts().qp(bth.dest_qp);
    try {
      shared_.rate_limiters().cnp(bth.dest_qp, qp != nullptr && !qp->destroyed, to_ps(sim_now()));
    } catch (const std::length_error& full) {
      fail_run(full.what());  // the rate-limiter block has no slot left (dcqcn.impl rtl)
    }
    return true;
  }
  notification_point_.marked(bth.dest_qp);
  return false;
}

Channel<packet::ReceivedPacket>& ReceiveDemux::queue_for(const packet::ReceivedPacket& packet) {
  // RC responses: READ RESPONSE FIRST..ONLY, ACKNOWLEDGE, ATOMIC ACKNOWLEDGE.
  const std::uint8_t opcode = packet.packet.bth.opcode;
  return opcode >= 0x0D && opcode <= 0x12 ? responses : requests;
}

void ReceiveDemux::mark_parsed(const packet::ReceivedPacket& packet, const sc_core::sc_time& at) {
  if (!is_acknowledge(packet.packet.bth.opcode))
    MessageBreakdown::instance().mark(*this, "ICRC checked, parsed", at);
}

bool ReceiveDemux::take_early(packet::ReceivedPacket& packet, const sc_core::sc_time& visible,
                              sc_core::sc_time& taken_at) {
  Channel<packet::ReceivedPacket>& queue = queue_for(packet);
  if (holding_ || !queue.can_push() || for_congestion_control(packet)) return false;
  taken_at = visible;
  mark_parsed(packet, visible);
  shared_.prefetch_qp(packet.packet.bth.dest_qp);
  queue.nb_push(std::move(packet), visible + latency_ - sim_now());
  return true;
}

void ReceiveDemux::run() {
  ++activity().method_activations;
  for (;;) {
    if (!holding_) {
      if (!in->nb_pop(routing_)) {
        sc_core::next_trigger(in->data_event());
        return;
      }
      if (congestion_control_took(routing_)) continue;
      holding_ = true;
      mark_parsed(routing_, sim_now());
      // The receive pipeline looks the QP up as the packet enters it: a
      // context it misses is read while the packet travels and queues.
      shared_.prefetch_qp(routing_.packet.bth.dest_qp);
    }
    Channel<packet::ReceivedPacket>& queue = queue_for(routing_);
    if (!queue.nb_push(std::move(routing_), latency_)) {
      sc_core::next_trigger(queue.space_event());
      return;
    }
    holding_ = false;
  }
}

}  // namespace rnicsim
