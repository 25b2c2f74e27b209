#pragma once
// The RC responder (see transport_shared.hpp for the units).
#include <cstdint>
#include <deque>
#include <memory>
#include <systemc>

#include "common/byte_pool.hpp"
#include "common/channel.hpp"
#include "common/module_macros.hpp"
#include "nic/dma/dma_engine.hpp"
#include "nic/packet/packet_blocks.hpp"
#include "nic/protection/request_checks.hpp"
#include "nic/translation/memory_translation.hpp"
#include "nic/transport/ordered_sender.hpp"
#include "nic/transport/packet_inbox.hpp"
#include "nic/transport/transport_shared.hpp"

namespace rnicsim {

class Responder : public sc_core::sc_module {
 public:
  sc_core::sc_port<PopIf<packet::ReceivedPacket>> in;

  RNICSIM_PROCESS_MODULE(Responder);
  Responder(const sc_core::sc_module_name& name, TransportShared& shared, DmaPort& port,
            MemoryTranslation& translation, Channel<packet::ReceivedPacket>& queue);

  OrderedSender sender;

 private:
  void end_of_elaboration() override;
  void run();
  void run_recv_flush();
  // Acts on a packet popped at `popped_at`, once the responder's cycles passed.
  void handle(const packet::ReceivedPacket& packet, const sc_core::sc_time& popped_at);
  // Counts a check's verdict (TransportStats::request_checks).
  void count(RequestCheck verdict);
  // A verdict of check 3 or 5 (request_checks.hpp): false when accepted;
  // otherwise counts it, NAKs the request and moves the QP to ERR (a
  // receive WQE the failed SEND took completes with `recv_status`).
  bool reject(QpContext& qp, RequestCheck verdict, std::uint32_t psn,
              ibv_wc_status recv_status = IBV_WC_SUCCESS);
  // The translation refused the RETH's or AtomicETH's key or bounds.
  void key_rejected(QpContext& qp, std::uint32_t psn);
  void handle_write_or_send(QpContext& qp, const packet::ReceivedPacket& packet);
  void handle_read(QpContext& qp, const packet::ReceivedPacket& packet, bool duplicate);
  void handle_atomic(QpContext& qp, const packet::ReceivedPacket& packet);
  void answer_duplicate_atomic(QpContext& qp, std::uint32_t psn);
  // Whether the next request waiting is a retry of the READ being answered
  // (from `first_psn`, `sent` responses so far): a READ request for the same
  // QP at one of the PSNs already answered (that response was lost).
  bool retry_waiting(const QpContext& qp, std::uint32_t first_psn, std::uint32_t sent) const;
  void send_atomic_ack(QpContext& qp, std::uint32_t psn, std::uint64_t original,
                       const std::vector<std::uint32_t>& after);
  // Receive WQEs (transport.recv_prefetch): the responder keeps up to that
  // many fetched ahead. fetch_recv is the demand path: a SEND found none
  // fetched, so it waits for the fetch in flight or issues one and waits;
  // whether a WQE is there now. refill_recv, after a SEND took one, takes a
  // fetch that has landed and issues the next, waiting for neither.
  bool fetch_recv(QpContext& qp);
  void refill_recv(QpContext& qp);
  // Issues a fetch of the WQEs posted and not yet fetched, up to the depth,
  // unless one is in flight or nothing is to fetch; with `wait_for_room`
  // false it also gives up when the DMA port is full. Whether one is in flight now.
  bool issue_recv_fetch(QpContext& qp, bool wait_for_room);
  // Waits for the QP's fetch in flight, if any, and queues its WQEs; false if
  // the QP went to RESET meanwhile (its WQEs are then not the QP's any more).
  bool land_recv_fetch(QpContext& qp);
  // A response packet carrying an AETH (`syndrome`, the QP's MSN): an ACK or
  // NAK, or an atomic ACK once its AtomicAckETH is added.
  packet::TransmitRequest aeth_response(const QpContext& qp, std::uint8_t opcode,
                                        std::uint32_t psn, std::uint8_t syndrome) const;
  void send_ack(QpContext& qp, std::uint8_t syndrome, std::uint32_t psn);
  void maybe_ack(QpContext& qp, std::uint32_t psn, bool requested);
  void fail_message(QpContext& qp, std::uint8_t nak, ibv_wc_status recv_status, std::uint32_t psn);
  // A READ response whose payload could not be read (the sender did not send it).
  void response_read_failed(const packet::TransmitRequest& response);
  void recv_completion(QpContext& qp, const RecvWork& recv, ibv_wc_status status,
                       std::uint32_t byte_len, bool with_imm, std::uint32_t imm, bool rdma_imm);

  TransportShared& shared_;
  DmaClient dma_;
  MemoryTranslation& translation_;
  Channel<packet::ReceivedPacket>& queue_;
  PacketInbox inbox_;
  std::vector<std::uint32_t> owing_acks_;  // QPs with ACKs held back for coalescing
  // Reused by the thread that handles packets (run): payload writes, a
  // READ's source, an atomic's target and the write its response waits for.
  std::vector<DmaRequest> writes_;
  TranslationResult read_source_;
  std::vector<PhysicalSegment> atomic_target_;
  std::vector<std::uint32_t> atomic_written_;
  BytePool atomic_results_;
  // Both threads fetch receive WQEs (run, and run_recv_flush for a QP in
  // ERR); the one that lands a QP's fetch marks it, and the other waits for
  // this event.
  sc_core::sc_event recv_fetch_landed_;
  BytePool recv_fetch_buffers_;
};

}  // namespace rnicsim
