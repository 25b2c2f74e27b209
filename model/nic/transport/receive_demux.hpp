#pragma once
// The split of received packets between responder and completer.
#include <cstdint>
#include <systemc>

#include "common/channel.hpp"
#include "common/module_macros.hpp"
#include "nic/congestion/notification_point.hpp"
#include "nic/packet/packet_blocks.hpp"
#include "nic/transport/transport_shared.hpp"

namespace rnicsim {

// Splits the parser's packets: requests to the responder, responses to the
// completer, CNPs to the QPs' rate limiters (DCQCN's reaction point); with
// DCQCN on, a CE-marked request or READ response is also shown to the
// notification point. An SC_METHOD: a packet whose queue is full waits here
// for room.
class ReceiveDemux : public sc_core::sc_module,
                     public EarlyReaderIf<packet::ReceivedPacket> {
 public:
  sc_core::sc_port<NbPopIf<packet::ReceivedPacket>> in;
  Channel<packet::ReceivedPacket> requests;
  Channel<packet::ReceivedPacket> responses;

  RNICSIM_PROCESS_MODULE(ReceiveDemux);
  // Each packet reaches the responder or completer `latency` after the parser.
  ReceiveDemux(const sc_core::sc_module_name& name, std::size_t queue_items,
               const sc_core::sc_time& latency, TransportShared& shared,
               NotificationPoint& notification_point);

  // Routes a packet at its push when its queue has room now: the demux is
  // the queues' only writer, so it has room when the packet becomes visible.
  bool take_early(packet::ReceivedPacket& packet, const sc_core::sc_time& visible,
                  sc_core::sc_time& taken_at) override;

 private:
  void end_of_elaboration() override;
  void run();
  Channel<packet::ReceivedPacket>& queue_for(const packet::ReceivedPacket& packet);
  void mark_parsed(const packet::ReceivedPacket& packet, const sc_core::sc_time& at);
  // Whether DCQCN has to see the packet (a CNP, or a CE mark with DCQCN on):
  // such packets are not taken early, so they are seen when they arrive.
  bool for_congestion_control(const packet::ReceivedPacket& packet) const;
  // Shows the packet to DCQCN now; true if it was a CNP (it goes no further).
  bool congestion_control_took(const packet::ReceivedPacket& packet);
  TransportShared& shared_;
  NotificationPoint& notification_point_;
  sc_core::sc_time latency_;
  packet::ReceivedPacket routing_;  // popped, waiting for room in its queue
  bool holding_ = false;
};

}  // namespace rnicsim
