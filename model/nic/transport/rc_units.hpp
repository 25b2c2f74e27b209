#pragma once
// The RC transport's units, split as Linux rxe splits them:
//
//   pcie2nic (MMIO) --> CommandUnit: doorbells, BlueFlame, driver commands
//   Requester: QP scheduler (transport.qp_scheduler), WQE fetch, local translation,
//              payload DMA, one request packet at a time per QP --> transmit
//   received --> ReceiveDemux --> requests  --> Responder: PSN checks, remote
//                                               translation, DMA writes, RECV
//                                               WQEs, READ responses, atomics,
//                                               ACKs and NAKs --> transmit
//                             --> responses --> Completer: ACKs, NAKs, READ
//                                               data, atomic results, CQEs
//
// They share the NIC's contexts (RcContexts) and context caches; each has
// its own DMA port and charges its cycles in the transport's clock domain.
// A lost or corrupted packet is recovered by the requester: the transport
// timer (AckTimer), NAK sequence errors and implied NAKs go back to the first
// unacknowledged PSN (go-back-N), retry_cnt times.
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "common/byte_pool.hpp"
#include "common/channel.hpp"
#include "common/clock_domain.hpp"
#include "common/module_macros.hpp"
#include "common/slot_ring.hpp"
#include "nic/dma/dma_engine.hpp"
#include "nic/translation/memory_translation.hpp"
#include "nic/translation/translation_cache.hpp"
#include "nic/packet/packet_blocks.hpp"
#include "nic/transport/ack_timer.hpp"
#include "nic/transport/dma_client.hpp"
#include "nic/transport/packet_inbox.hpp"
#include "nic/transport/rc_contexts.hpp"
#include "nic/transport/transport_config.hpp"

namespace rnicsim {

// The NIC's own addresses on the wire.
struct NicAddress {
  std::array<std::uint8_t, 6> mac{};
  std::uint32_t ipv4 = 0;
};

// Counters of the transport, per NIC. Where mlx5's RDMA counters have one
// for the same event its name is used (see the README).
struct TransportStats {
  std::uint64_t doorbells = 0;
  std::uint64_t blueflame_writes = 0;
  std::uint64_t commands = 0;
  std::uint64_t wqe_fetches = 0;
  std::uint64_t wqes_started = 0;
  std::uint64_t request_packets = 0;
  std::uint64_t response_packets = 0;  // ACKs, NAKs, READ responses, atomic ACKs sent
  std::uint64_t acks_sent = 0;
  std::uint64_t naks_sent = 0;
  std::uint64_t rnr_naks_sent = 0;
  std::uint64_t duplicate_requests = 0;
  std::uint64_t out_of_sequence = 0;
  std::uint64_t cqes = 0;
  std::uint64_t qp_cache_misses = 0;
  std::uint64_t cq_cache_misses = 0;
  std::uint64_t dropped_no_qp = 0;  // packets for a QP that does not exist or is not ready
  // Retransmission, at the requester.
  std::uint64_t packet_seq_err = 0;         // NAK sequence errors received
  std::uint64_t local_ack_timeout_err = 0;  // transport timer expiries
  std::uint64_t rnr_nak_retry_err = 0;      // RNR NAKs received
  std::uint64_t implied_nak_seq_err = 0;    // responses that skipped a READ's or atomic's
  std::uint64_t retransmitted_packets = 0;  // request packets sent again
  std::uint64_t retry_exceeded = 0;         // WQEs ended with IBV_WC_RETRY_EXC_ERR
  std::uint64_t ghost_responses = 0;        // responses to PSNs never sent: ignored
  std::uint64_t stale_naks = 0;             // NAKs for PSNs already acknowledged: ignored
  std::uint64_t activations = 0;
};

// What the units share: contexts, caches, clock, counters.
class TransportShared {
 public:
  TransportShared(const TransportConfig& config, const NicAddress& address);

  const TransportConfig& config() const { return config_; }
  const NicAddress& address() const { return address_; }
  RcContexts& contexts() { return contexts_; }
  TransportStats& stats() { return stats_; }
  AckTimer& ack_timer() { return ack_timer_; }
  sc_core::sc_time cycles(std::uint64_t n) const { return clock_.cycles(n); }

  // Charges a QP (CQ) context fetch by DMA when the cache misses it.
  void touch_qp(const QpContext& qp, DmaClient& dma);
  void touch_cq(const CqContext& cq, DmaClient& dma);
  // Writes a CQE for `wc` into CQ `cqn` by DMA through `dma` (after every
  // earlier write of that client: posted writes stay in order).
  void write_cqe(std::uint32_t cqn, const ibv_wc& wc, DmaClient& dma,
                 std::uint32_t wqe_counter = 0);
  // The packet headers every packet to the QP's peer shares.
  packet::RocePacket header_template(const QpContext& qp) const;

  // Moves the QP to ERR: the requester and responder then flush its WQEs.
  void set_error(QpContext& qp);

 private:
  TransportConfig config_;
  NicAddress address_;
  ClockDomain clock_;
  RcContexts contexts_;
  TransportStats stats_;
  AckTimer ack_timer_;
  TranslationCache<bool> qp_cache_;
  TranslationCache<bool> cq_cache_;
  BytePool cqe_buffers_;      // a CQE's bytes live until its posted write completes
  BytePool context_buffers_;  // a context read's destination, one per read in flight
};

// Doorbells, BlueFlame writes and the command mailbox. A deregistration
// command drops the MR's entries from `translation`'s caches.
class CommandUnit : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<CommandUnit> pcie2nic;

  RNICSIM_PROCESS_MODULE(CommandUnit);
  CommandUnit(const sc_core::sc_module_name& name, TransportShared& shared, DmaPort& port,
              MemoryTranslation& translation);

 private:
  void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
  void run_commands();
  CommandStatus execute(const Command& command);

  TransportShared& shared_;
  DmaClient dma_;
  MemoryTranslation& translation_;
  std::deque<std::uint64_t> mailboxes_;
  sc_core::sc_event command_rung_;
};

// Sends request packets in the order they were made, each once its payload
// is read (READ requests and atomics carry none): packets of different QPs
// interleave, and a long message's first packet leaves before its last is read.
// One thread of the owning unit calls send(); an SC_METHOD hands the packets on,
// or the process completing their payload reads does (completion_arrived).
// A packet one of whose payload reads failed is not sent (its bytes would be
// stale): the owner's read-failure handler is called instead.
class OrderedSender : public sc_core::sc_module, private DmaCompletionListener {
 public:
  sc_core::sc_port<NbPushIf<packet::TransmitRequest>> out;

  RNICSIM_PROCESS_MODULE(OrderedSender);
  // Each packet reaches `out` `latency` after its payload is read.
  OrderedSender(const sc_core::sc_module_name& name, DmaClient& dma,
                const sc_core::sc_time& latency);

  // Queues a packet; `payload_from` (may be null) are the segments to read
  // its payload from, starting `offset` bytes in. It also waits for the DMA
  // requests `after` (an ACK waits for the writes it acknowledges).
  void send(packet::TransmitRequest request, const std::vector<PhysicalSegment>* payload_from,
            std::uint64_t offset, std::uint32_t length,
            const std::vector<std::uint32_t>& after = {}, SegmentCursor* cursor = nullptr);

  // Called (from the sender's method or the process completing a read: it
  // must not wait) with a packet whose payload could not be read, in place of
  // sending it.
  using ReadFailedHandler = std::function<void(const packet::TransmitRequest&)>;
  void on_read_failed(ReadFailedHandler handler) { read_failed_ = std::move(handler); }
  // The packets QP `qpn` has queued are not sent (their reads still
  // complete first), nor is one it is queueing now: what a QP queued before
  // it failed. Packets it queues afterwards are sent.
  void discard_queued_from(std::uint32_t qpn);

 private:
  struct Pending {
    packet::TransmitRequest request;  // moved out when sent: the slot keeps no payload
    std::vector<std::uint32_t> tickets;  // the `after` tickets, then the payload reads'
    std::size_t first_read = 0;          // where the payload reads' tickets start
    bool discard = false;                // dropped once its tickets are done
  };
  // What keeps the sender from sending its next packet.
  enum class Blocked : std::uint8_t { kNothing, kTickets, kSpace };
  void end_of_elaboration() override;
  // Sends every packet it can, in order; what stops it.
  Blocked advance();
  // The method: advance(), then wait for a packet or for the builder's room.
  void run();
  // A completion at the port, in the process that made it: the head's
  // reads are waited for here, so they cost the kernel no activation.
  void completion_arrived() override;
  // Pops the head (its tickets all released) and readies for the next.
  packet::TransmitRequest take_head();

  DmaClient& dma_;
  sc_core::sc_time latency_;
  std::size_t head_tickets_done_ = 0;  // the head's tickets waited for and released
  bool head_read_failed_ = false;      // one of the head's payload reads failed
  ReadFailedHandler read_failed_;
  BytePool payloads_;  // the DMA reads every byte of a payload it takes
  SlotRing<Pending> pending_;
  // The packet being queued: its tickets gather here while its reads are
  // issued (issuing may wait), so run() never sees a packet half made.
  std::vector<std::uint32_t> staged_tickets_;
  // The owner's read-failure handler may send (a NAK) while the owner's
  // thread waits inside send() for room at the DMA port: that inner send
  // stages its tickets apart, and QPs discarded during the outer one are
  // remembered so that its packet is discarded too.
  bool sending_ = false;
  std::vector<std::uint32_t> inner_tickets_;
  std::vector<std::uint32_t> discarded_while_sending_;
  std::vector<DmaRequest> reads_;  // the reads of the packet being queued
  Blocked blocked_ = Blocked::kNothing;
  // A packet whose reads are all done joined an empty queue, or the method
  // must wait for the builder's room (found full in completion_arrived()).
  sc_core::sc_event queued_;
};

class Requester : public sc_core::sc_module {
 public:
  RNICSIM_PROCESS_MODULE(Requester);
  Requester(const sc_core::sc_module_name& name, TransportShared& shared, DmaPort& port,
            MemoryTranslation& translation);

  OrderedSender sender;

 private:
  void run();
  QpContext* pick();
  bool has_work(QpContext& qp) const;
  // Whether `work`'s next packet is within the QP's window of unacknowledged PSNs.
  bool next_packet_in_window(const QpContext& qp, const SendWork& work) const;
  // Whether `work` is still the QP's next to send and may send now.
  bool still_next(QpContext& qp, const SendWork& work) const;
  // Whether request packet `index` of `count` (PSN `psn`) sets AckReq.
  bool asks_for_ack(const QpContext& qp, std::uint32_t index, std::uint32_t count,
                    std::uint32_t psn) const;
  void fetch_wqes(QpContext& qp);
  void take_fetched(QpContext& qp);
  bool start_wqe(QpContext& qp);
  void send_packet(QpContext& qp, SendWork& work);
  void flush(QpContext& qp);
  // A request packet's payload could not be read (the sender did not send it).
  void payload_read_failed(const packet::TransmitRequest& request);

  TransportShared& shared_;
  DmaClient dma_;
  MemoryTranslation& translation_;
  // The WQE start_wqe is starting: the completer reads the QP's ring while
  // the translations wait, so it joins the ring only once complete.
  SendWork starting_;
  SendWqe decoded_;  // a WQE just decoded, copied into the QP's ring if whole
  BytePool fetch_buffers_;    // WQE fetches in flight
  BytePool inline_payloads_;  // inline packets' payloads, until built into frames
  std::uint32_t last_qpn_ = 0;
  sc_core::sc_event hold_over_;  // an RNR hold ends
  // What may give an idle requester work: new work or an RNR hold's end,
  // and a DMA completion while a WQE fetch is in flight (the only DMA it
  // waits for between packets; its sender takes the payload reads'). Built
  // once (`a | b` allocates).
  sc_core::sc_event_or_list work_wake_;
  sc_core::sc_event_or_list work_or_fetch_wake_;
  bool fetch_in_flight_ = false;  // pick() found no work but a QP's WQE fetch in flight
  sc_core::sc_time owed_;        // cycles charged with the next packet
};

// Splits the parser's packets: requests to the responder, responses to the
// completer. An SC_METHOD: a packet whose queue is full waits here for room.
class ReceiveDemux : public sc_core::sc_module,
                     public EarlyReaderIf<packet::ReceivedPacket> {
 public:
  sc_core::sc_port<NbPopIf<packet::ReceivedPacket>> in;
  Channel<packet::ReceivedPacket> requests;
  Channel<packet::ReceivedPacket> responses;

  RNICSIM_PROCESS_MODULE(ReceiveDemux);
  // Each packet reaches the responder or completer `latency` after the parser.
  ReceiveDemux(const sc_core::sc_module_name& name, std::size_t queue_items,
               const sc_core::sc_time& latency);

  // Routes a packet at its push when its queue has room now: the demux is
  // the queues' only writer, so it has room when the packet becomes visible.
  bool take_early(packet::ReceivedPacket& packet, const sc_core::sc_time& visible,
                  sc_core::sc_time& taken_at) override;

 private:
  void end_of_elaboration() override;
  void run();
  Channel<packet::ReceivedPacket>& queue_for(const packet::ReceivedPacket& packet);
  void mark_parsed(const packet::ReceivedPacket& packet, const sc_core::sc_time& at);
  sc_core::sc_time latency_;
  packet::ReceivedPacket routing_;  // popped, waiting for room in its queue
  bool holding_ = false;
};

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
  bool fetch_recv(QpContext& qp);
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
  BytePool recv_fetches_;  // receive WQE fetches (both threads fetch)
};

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
  BytePool atomic_results_;
};

// Work completion opcode of a send WQE's opcode.
ibv_wc_opcode wc_opcode_of(ibv_wr_opcode opcode);
// The RNR NAK timer code's delay (REFERENCE section 5), in microseconds.
double rnr_timer_us(std::uint8_t code);

}  // namespace rnicsim
