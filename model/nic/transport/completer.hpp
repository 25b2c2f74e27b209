#pragma once
// The RC completer (see transport_shared.hpp for the units).
#include <cstdint>
#include <systemc>

#include "common/byte_pool.hpp"
#include "common/channel.hpp"
#include "common/module_macros.hpp"
#include "nic/dma/dma_engine.hpp"
#include "nic/packet/packet_blocks.hpp"
#include "nic/transport/packet_inbox.hpp"
#include "nic/transport/transport_shared.hpp"

namespace rnicsim {

class Completer : public sc_core::sc_module {
 public:
  sc_core::sc_port<PopIf<packet::ReceivedPacket>> in;

  RNICSIM_PROCESS_MODULE(Completer);
  Completer(const sc_core::sc_module_name& name, TransportShared& shared, DmaPort& port);

 private:
  void end_of_elaboration() override;
  void run();
  // Acts on a packet popped at `popped_at`, once the completer's cycles passed.
  void handle(const packet::ReceivedPacket& packet, const sc_core::sc_time& popped_at);
  void handle_read_or_atomic_response(QpContext& qp, const packet::ReceivedPacket& packet);
  // Retires every WQE whose packets are acknowledged through `psn`; true if
  // that acknowledged anything new (progress).
  bool retire_through(QpContext& qp, std::uint32_t psn);
  // A response acknowledged something new: retry counts reset, the timer
  // starts over.
  void progress(QpContext& qp);
  void retire_front(QpContext& qp, ibv_wc_status status);
  void on_nak(QpContext& qp, std::uint8_t syndrome, std::uint32_t psn);
  // A response passed the front READ's or atomic's missing responses.
  void implied_nak(QpContext& qp);
  // Uses one of the QP's retries to go back to `psn`; with none left the
  // front WQE ends in IBV_WC_RETRY_EXC_ERR and the QP goes to ERR. Never waits.
  void retry(QpContext& qp, std::uint32_t psn);
  // The timer method: every QP whose transport timer expired retries.
  void expire_ack_timers();

  TransportShared& shared_;
  DmaClient dma_;
  PacketInbox inbox_;
  std::vector<DmaRequest> writes_;  // a response's data into the local buffer
  std::vector<QpContext*> expired_;  // the QPs a timer expiry retries
  BytePool atomic_results_;
};

}  // namespace rnicsim
