#pragma once
// The RC transport's state: one context per QP and per CQ, as the NIC keeps
// them, and the table that holds them. The units (command unit, requester,
// responder, completer) share the table; each touches only its own part of
// a context, named after it. Kernel-free apart from the events that wake
// the units.
//
// The values live here; the context caches (transport_units.hpp) charge
// the time a real NIC spends fetching a context it does not hold.
//
// The per-QP queues reuse their storage: plain values sit in RingQueues,
// items that own vectors (segments, bytes) in SlotRings, whose popped items
// keep their capacity for the next, so a QP in steady state allocates nothing.
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <systemc>
#include <vector>

#include "common/ring_queue.hpp"
#include "common/slot_ring.hpp"
#include "common/transfer.hpp"
#include "formats/frame.hpp"
#include "interface/queue_formats.hpp"
#include "interface/ring_layout.hpp"
#include "nic/protection/psn.hpp"
#include "nic/translation/memory_translation.hpp"
#include "nic/transport/dma_client.hpp"

namespace rnicsim {

// A send WQE the requester has started: its PSNs, and what is left to send
// and to complete.
struct SendWork {
  SendWqe wqe;
  std::uint32_t first_psn = 0;
  std::uint32_t packets = 0;       // PSNs it takes (READ: its response packets)
  std::uint32_t sent = 0;          // request packets sent (READ and atomic: 0 or 1)
  // READ and atomic: response packets taken, in PSN order (an atomic has
  // one). A READ's retry asks only for the rest: its request carries PSN
  // first_psn + responses and the RETH moved on.
  std::uint32_t responses = 0;
  bool read_or_atomic = false;
  // Success, or the local error it completes with once its QP is flushed
  // (a payload read that failed: IBV_WC_LOC_PROT_ERR).
  ibv_wc_status error = IBV_WC_SUCCESS;
  TranslationResult local;         // its local buffer, physical (not for inline)
  SegmentCursor local_cursor;      // where the last packet's bytes began in it
  std::uint32_t last_psn() const { return psn_add(first_psn, packets - 1); }
  std::uint32_t request_packets() const { return read_or_atomic ? 1 : packets; }
  // Nothing left to send: every request packet, or (a READ or atomic
  // rewound while its last responses were on their way) every response taken.
  bool all_sent() const {
    return sent >= request_packets() || (read_or_atomic && responses >= packets);
  }
};

// A WQE the driver wrote with its doorbell (BlueFlame): the requester takes
// it instead of fetching the WQE from the send ring.
struct BlueFlameWqe {
  std::uint32_t first_block = 0;  // where it lies in the send ring
  std::vector<std::uint8_t> bytes;
};

// A receive WQE the responder has fetched.
struct RecvWork {
  RecvWqe wqe;
  std::uint64_t capacity = 0;  // the SGEs' sum
};

// The message the responder is in the middle of (SEND or WRITE).
struct InboundMessage {
  bool active = false;
  bool is_send = false;
  bool with_imm = false;
  std::uint32_t imm = 0;
  std::uint64_t offset = 0;      // bytes placed so far
  TranslationResult target;      // where its bytes go, physical
  SegmentCursor target_cursor;
  std::uint64_t target_length = 0;
  bool failed = false;           // a NAK was sent; the rest is dropped

  // As a new InboundMessage{}, but the segments keep their capacity.
  void reset() {
    std::vector<PhysicalSegment> segments = std::move(target.segments);
    segments.clear();
    *this = InboundMessage{};
    target.segments = std::move(segments);
  }
};

struct QpContext {
  std::uint32_t qpn = 0;
  std::uint32_t pd = 0;
  std::uint64_t context_address = 0;
  ibv_qp_state state = IBV_QPS_RESET;
  bool destroyed = false;
  // Times the QP went back to RESET: a DMA issued before then is for a QP that no longer is.
  std::uint32_t resets = 0;
  std::uint32_t send_cqn = 0;
  std::uint32_t recv_cqn = 0;
  RingLayout send_ring;  // entries are 64 B blocks
  RingLayout recv_ring;
  // Attributes from modify.
  std::uint32_t pmtu = 1024;
  std::uint32_t dest_qpn = 0;
  std::uint32_t access = 0;
  ibv_ah_attr ah;
  std::uint8_t min_rnr_timer = 0;
  std::uint8_t timeout = 0;
  std::uint8_t retry_cnt = 0;
  std::uint8_t rnr_retry = 0;
  std::uint8_t max_rd_atomic = 1;
  std::uint8_t max_dest_rd_atomic = 1;

  // Requester.
  std::uint32_t send_producer = 0;  // blocks, from the doorbell
  std::uint32_t send_fetched = 0;   // blocks fetched or taken from BlueFlame
  bool fetch_pending = false;
  std::uint32_t fetch_ticket = 0;  // the WQE fetch's DMA ticket
  std::uint32_t fetch_blocks = 0;
  std::shared_ptr<Bytes> fetch_buffer;
  SlotRing<BlueFlameWqe> blueflame; // written with their doorbells, not yet taken, in ring order
  SlotRing<SendWqe> fetched;        // fetched, not started
  SlotRing<SendWork> outstanding;   // started, not completed, in PSN order
  // How many WQEs at the front of `outstanding` are known to have sent every
  // request packet: first_unsent() looks from there, not from the front (up
  // to the send queue depth of WQEs wait there for their ACKs). Kept by
  // pop_outstanding(); a go-back-N resend sets it back to 0.
  std::size_t sent_prefix = 0;
  std::uint32_t next_psn = 0;
  std::uint32_t acked_psn = 0;      // the oldest PSN not yet acknowledged
  std::uint32_t rd_atomic_outstanding = 0;
  std::uint32_t rnr_retries_left = 0;
  sc_core::sc_time resume_at;       // an RNR NAK holds the requester until then
  // Retransmission (IBTA 9.7.6, and Linux rxe's completer). The transport
  // timer runs while a packet sent is unacknowledged: `ack_deadline` is its
  // expiry (zero: stopped), restarted by each response that makes progress.
  // Timeouts and NAK sequence errors each use one of `retries_left`
  // (retry_cnt, reset by progress); a go-back-N under way (`retry_started`)
  // ignores further sequence errors and implied NAKs until progress or a
  // timeout, so one loss starts one retry.
  std::uint32_t sent_psn_end = 0;   // one past the last PSN any packet sent asks a response for
  sc_core::sc_time ack_deadline;
  sc_core::sc_time ack_queued_at;  // AckTimer's queue entry for this QP (zero: none)
  std::uint32_t retries_left = 0;
  std::uint32_t timeouts_in_row = 0;  // for exponential backoff (transport.ack_timeout_backoff)
  bool retry_started = false;
  std::uint64_t send_completed = 0; // WQEs retired
  std::uint64_t retransmitted_packets = 0;  // request packets of this QP sent again
  // A requester engine is working on the QP (the QP's WQE chain is serial:
  // no other engine takes it until that engine's turn ends).
  bool on_engine = false;

  // Responder.
  std::uint32_t recv_producer = 0;  // entries, from the doorbell
  std::uint32_t recv_fetched = 0;
  // The receive WQE fetch in flight, one at most (Responder::issue_recv_fetch):
  // its DMA ticket, how many WQEs it reads, and whether a thread is landing it.
  // Going to RESET drops it with the rest of the context.
  bool recv_fetch_in_flight = false;
  bool recv_fetch_landing = false;
  std::uint32_t recv_fetch_ticket = 0;
  std::uint32_t recv_fetch_count = 0;
  std::shared_ptr<Bytes> recv_fetch_bytes;
  RingQueue<RecvWork> recv_ready;
  std::uint32_t expected_psn = 0;
  std::uint32_t msn = 0;
  bool nak_outstanding = false;     // a NAK went out; out-of-sequence packets are dropped silently
  InboundMessage inbound;
  std::uint32_t rd_atomic_in_progress = 0;
  std::uint32_t acks_owed = 0;      // messages that asked for an ACK since the last one
  std::vector<std::uint32_t> unacked_writes;  // DMA tickets of payload not yet acknowledged
  std::uint32_t last_acked_psn = 0;
  // The last max_dest_rd_atomic atomics executed, so that a duplicate (its
  // ACK was lost and the requester retried) is answered with the value it
  // first returned and not executed again (IBTA 9.7.5.1.5).
  struct SavedAtomic {
    std::uint32_t psn = 0;
    std::uint64_t original = 0;
  };
  std::vector<SavedAtomic> saved_atomics;  // at most max_dest_rd_atomic, the oldest replaced
  std::size_t next_saved_atomic = 0;

  // The first started WQE with request packets still to send, or null.
  SendWork* first_unsent() {
    while (sent_prefix < outstanding.size()) {
      SendWork& work = outstanding[sent_prefix];
      if (!work.all_sent()) return &work;
      ++sent_prefix;
    }
    return nullptr;
  }
  // Whether a request packet with PSN `psn` is inside the window of
  // `window` unacknowledged packets.
  bool in_window(std::uint32_t psn, std::uint32_t window) const {
    return psn_diff(psn, acked_psn) < static_cast<std::int32_t>(window);
  }
  // The PSN of the next request packet the requester would send: the first
  // unsent packet of a started WQE, else the next WQE's first.
  std::uint32_t next_request_psn() {
    const SendWork* work = first_unsent();
    return work != nullptr ? psn_add(work->first_psn, work->sent) : next_psn;
  }
  // The outstanding WQE whose PSNs hold `psn`, or null.
  SendWork* work_holding(std::uint32_t psn) {
    for (SendWork& work : outstanding) {
      if (psn_diff(psn, work.first_psn) >= 0 && psn_diff(work.last_psn(), psn) >= 0) return &work;
    }
    return nullptr;
  }
  // Go-back-N: the requester sends again from `psn`, which an outstanding
  // WQE holds (else nothing changes): that WQE's packets from `psn` on and
  // every later WQE's. A READ asks again only for the responses it lacks.
  void rewind_to(std::uint32_t psn) {
    const SendWork* holder = work_holding(psn);
    if (holder == nullptr) return;
    sent_prefix = 0;
    bool after = false;
    for (SendWork& work : outstanding) {
      if (&work == holder) after = true;
      if (!after) continue;
      if (work.read_or_atomic) {
        if (work.sent > 0 && rd_atomic_outstanding > 0) --rd_atomic_outstanding;
        work.sent = 0;
      } else {
        work.sent = &work == holder ? static_cast<std::uint32_t>(psn_diff(psn, work.first_psn)) : 0;
      }
    }
  }
  // Retires (or flushes) the oldest outstanding WQE.
  void pop_outstanding() {
    outstanding.pop_front();
    if (sent_prefix > 0) --sent_prefix;
  }

  // Whether a packet sent still waits for its acknowledgement or response.
  bool awaiting_response() const {
    return !outstanding.empty() && psn_diff(sent_psn_end, acked_psn) > 0;
  }

  bool requester_ready() const { return state == IBV_QPS_RTS; }
  bool responder_ready() const {
    return state == IBV_QPS_RTR || state == IBV_QPS_RTS;
  }
};

struct CqContext {
  std::uint32_t cqn = 0;
  std::uint64_t context_address = 0;
  RingLayout ring;
  std::uint64_t producer = 0;  // CQEs written
};

// A set of QP numbers below kMaxQps, as three levels of 64-bit words, so
// that adding, removing and finding the next member from a QP number cost a
// few word operations (the requester's candidates change on every doorbell
// and ACK). The words cover the QP numbers inserted so far, growing by
// doubling: a NIC of a few QPs holds a few words, not 2^18 bits (33 KB) per
// set from the start (a NIC has one set per send lane and the RNR-held set:
// 66 KB before its first QP with one lane).
class QpSet {
 public:
  static constexpr std::uint32_t kNone = 0xFFFFFFFF;

  bool contains(std::uint32_t qpn) const {
    return (qpn >> 6) < leaves_.size() && ((leaves_[qpn >> 6] >> (qpn & 63)) & 1u);
  }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  void insert(std::uint32_t qpn) {
    if (contains(qpn)) return;
    if ((qpn >> 6) >= leaves_.size()) cover(qpn);
    ++size_;
    leaves_[qpn >> 6] |= bit(qpn);
    middle_[qpn >> 12] |= bit(qpn >> 6);
    top_[qpn >> 18] |= bit(qpn >> 12);
  }
  void erase(std::uint32_t qpn) {
    if (!contains(qpn)) return;
    --size_;
    if ((leaves_[qpn >> 6] &= ~bit(qpn)) != 0) return;
    if ((middle_[qpn >> 12] &= ~bit(qpn >> 6)) != 0) return;
    top_[qpn >> 18] &= ~bit(qpn >> 12);
  }
  // The least member at or after `from`, or kNone.
  std::uint32_t next_from(std::uint64_t from) const {
    if (from >= 64 * std::uint64_t{leaves_.size()}) return kNone;
    const auto start = static_cast<std::uint32_t>(from);
    // The rest of `from`'s leaf word, then the next non-empty leaf in its middle word...
    if (const std::uint64_t w = leaves_[start >> 6] & above(start & 63))
      return (start & ~63u) + low(w);
    const std::uint32_t leaf = start >> 6;
    if (const std::uint64_t w = middle_[leaf >> 6] & above((leaf & 63) + 1))
      return first_in_leaf((leaf & ~63u) + low(w));
    const std::uint32_t mid = leaf >> 6;
    if (const std::uint64_t w = top_[mid >> 6] & above((mid & 63) + 1))
      return first_in_middle((mid & ~63u) + low(w));
    for (std::uint32_t t = (mid >> 6) + 1; t < top_.size(); ++t) {
      if (top_[t] != 0) return first_in_middle(t * 64 + low(top_[t]));
    }
    return kNone;
  }
  std::uint32_t first() const { return next_from(0); }

 private:
  static std::uint64_t bit(std::uint32_t n) { return std::uint64_t{1} << (n & 63); }
  // The bits at or above position `n` (none for n = 64).
  static std::uint64_t above(std::uint32_t n) { return n >= 64 ? 0 : ~std::uint64_t{0} << n; }
  static std::uint32_t low(std::uint64_t w) {
    return static_cast<std::uint32_t>(__builtin_ctzll(w));
  }
  std::uint32_t first_in_leaf(std::uint32_t leaf) const { return leaf * 64 + low(leaves_[leaf]); }
  std::uint32_t first_in_middle(std::uint32_t mid) const {
    return first_in_leaf(mid * 64 + low(middle_[mid]));
  }

  // Grows the words to cover `qpn` (below kMaxQps), at least doubling them;
  // the new words are empty.
  void cover(std::uint32_t qpn) {
    const std::size_t leaves = std::min<std::size_t>(
        kMaxQps / 64, std::max<std::size_t>((qpn >> 6) + 1, 2 * leaves_.size()));
    leaves_.resize(leaves);
    middle_.resize((leaves + 63) / 64);
    top_.resize((middle_.size() + 63) / 64);
  }

  std::vector<std::uint64_t> leaves_, middle_, top_;
  std::size_t size_ = 0;
};

// Every QP and CQ of one NIC, and the events that wake its units.
class RcContexts {
 public:
  QpContext* qp(std::uint32_t qpn);
  CqContext* cq(std::uint32_t cqn);
  QpContext& add_qp(std::uint32_t qpn);
  CqContext& add_cq(std::uint32_t cqn);
  const std::map<std::uint32_t, std::unique_ptr<QpContext>>& qps() const { return qps_; }

  sc_core::sc_event send_work;  // a send doorbell, a QP to RTS or ERR, an ACK opening a window
  sc_core::sc_event recv_work;  // a receive doorbell, a QP to ERR

  // QP `qp` may have work for the requester (a doorbell, a window opened, a
  // state change, a rewind): it joins the requester's candidates and the
  // requester wakes. The requester looks only at its candidates and drops a
  // QP that has no work and waits for nothing but such an event, so a NIC
  // with 100,000 QPs does not scan them all per packet.
  void wake_sender(QpContext& qp) {
    send_candidates_[lane_of(qp.qpn)].insert(qp.qpn);
    send_work.notify(sc_core::SC_ZERO_TIME);
  }
  // Every QP may have work (a PFC pause released): all become candidates.
  void wake_all_senders();
  // The candidates in `lanes` sets, QP q in set q % lanes: with QPs assigned
  // to engines statically each engine looks at its own set, so an idle
  // engine does not walk 100,000 QPs of the others'. Set before any wake.
  void set_send_lanes(std::uint32_t lanes) { send_candidates_.assign(lanes, QpSet()); }
  QpSet& send_candidates(std::uint32_t lane) { return send_candidates_[lane]; }
  // The candidate after `qpn` in QP number order over every lane, wrapping
  // to the first (kNone when there is none): the QP the scheduler serves
  // after this one, whose context it may read ahead.
  std::uint32_t next_send_candidate(std::uint32_t qpn) const;
  // QPs an RNR NAK holds (resume_at set): the requester's wake-up looks at these.
  QpSet& rnr_held() { return rnr_held_; }

  // QP `qp` went to ERR, or took a receive doorbell in ERR: the responder's
  // flush looks at these QPs only.
  void wake_receive_flush(QpContext& qp) {
    error_qps_.emplace(qp.qpn, &qp);
    recv_work.notify(sc_core::SC_ZERO_TIME);
  }
  std::map<std::uint32_t, QpContext*>& error_qps() { return error_qps_; }

 private:
  std::map<std::uint32_t, std::unique_ptr<QpContext>> qps_;
  std::uint32_t lane_of(std::uint32_t qpn) const {
    return static_cast<std::uint32_t>(qpn % send_candidates_.size());
  }
  std::vector<QpSet> send_candidates_ = std::vector<QpSet>(1);
  QpSet rnr_held_;
  std::vector<QpContext*> by_qpn_;  // qps_ by QP number, for a lookup per packet
  std::map<std::uint32_t, QpContext*> error_qps_;
  std::map<std::uint32_t, std::unique_ptr<CqContext>> cqs_;
};

}  // namespace rnicsim
