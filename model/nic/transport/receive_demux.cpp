// Received packets to the responder or the completer.
#include <algorithm>
#include <stdexcept>

#include "common/activity.hpp"
#include "common/message_breakdown.hpp"
#include "common/time_units.hpp"
#include "formats/opcodes.hpp"
#include "nic/transport/receive_demux.hpp"

namespace rnicsim {

ReceiveDemux::ReceiveDemux(const sc_core::sc_module_name& name, std::size_t queue_items,
                           const sc_core::sc_time& latency)
    : sc_core::sc_module(name),
      in("in"),
      requests("requests", queue_items),
      responses("responses", queue_items),
      latency_(latency) {
  SC_METHOD(run);
}

void ReceiveDemux::end_of_elaboration() {
  if (auto* source = dynamic_cast<EarlyTakeSourceIf<packet::ReceivedPacket>*>(in.get_interface())) {
    source->set_early_reader(this);
  }
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
  if (holding_ || !queue.can_push()) return false;
  taken_at = visible;
  mark_parsed(packet, visible);
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
      holding_ = true;
      mark_parsed(routing_, sim_now());
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
