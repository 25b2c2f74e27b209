// Completer: takes the responses to this NIC's requests. An ACK retires
// every WQE up to its PSN; READ responses are placed in the local buffer by
// DMA and the last one retires the READ; an atomic ACK's original value is
// written to the local buffer. A retired WQE gets a CQE when it was
// signaled, written after its data (one DMA client: posted writes stay in
// order). Error NAKs end the WQE in error and move the QP to ERR; an RNR NAK
// holds the requester for the NAK's timer and resends from its PSN.
//
// Lost packets (IBTA 9.7.5, 9.7.6; Linux rxe's completer): a NAK sequence
// error, a response that skips a READ's or atomic's PSNs (an implied NAK) and
// the transport timer's expiry each go back to the first unanswered PSN, using
// one of retry_cnt retries; progress resets them. Duplicate responses (the
// retry's overlap) are ignored.
#include "nic/transport/completer.hpp"

#include <algorithm>

#include "common/message_breakdown.hpp"
#include "common/time_units.hpp"

namespace rnicsim {
namespace {

constexpr std::uint8_t kReadResponseFirst = 0x0D, kReadResponseOnly = 0x10, kAcknowledge = 0x11,
                       kAtomicAcknowledge = 0x12;
// AETH NAK syndromes (REFERENCE section 5).
constexpr std::uint8_t kRnrNak = 0x20, kNakSequence = 0x60;

ibv_wc_status nak_status(std::uint8_t syndrome) {
  switch (syndrome) {
    case 0x61: return IBV_WC_REM_INV_REQ_ERR;
    case 0x62: return IBV_WC_REM_ACCESS_ERR;
    default: return IBV_WC_REM_OP_ERR;
  }
}

}  // namespace

Completer::Completer(const sc_core::sc_module_name& name, TransportShared& shared, DmaPort& port)
    : sc_core::sc_module(name),
      in("in"),
      shared_(shared),
      dma_(port),
      inbox_(shared.cycles(shared.config().completer_cycles)) {
  SC_THREAD(run);
  SC_METHOD(expire_ack_timers);
  sensitive << shared_.ack_timer().event();
  dont_initialize();
}

void Completer::end_of_elaboration() { inbox_.attach(in.get_interface()); }

void Completer::run() {
  for (;;) {
    packet::ReceivedPacket packet;
    const sc_core::sc_time popped_at = inbox_.next(in, packet);
    ++shared_.stats().activations;
    handle(packet, popped_at);
    shared_.stats().completer_busy += sim_now() - popped_at;
  }
}

void Completer::handle(const packet::ReceivedPacket& packet, const sc_core::sc_time& popped_at) {
  const packet::RocePacket& p = packet.packet;
  QpContext* qp = shared_.contexts().qp(p.bth.dest_qp);
  if (qp == nullptr || qp->destroyed || qp->state != IBV_QPS_RTS) {
    ++shared_.stats().dropped_no_qp;
    return;
  }
  if (!is_acknowledge(p.bth.opcode))
    MessageBreakdown::instance().mark(*this, "receive pipeline", popped_at);
  shared_.touch_qp(*qp, dma_);
  if (qp->state != IBV_QPS_RTS) return;  // moved to ERR while the context was fetched
  const std::uint32_t psn = p.bth.psn;
  // Every response answers a PSN some request packet covered: one beyond
  // them all answers nothing this QP sent (a ghost), and is ignored.
  if (psn_diff(psn, qp->sent_psn_end) >= 0) {
    ++shared_.stats().ghost_responses;
    return;
  }
  if (p.bth.opcode != kAcknowledge) {
    handle_read_or_atomic_response(*qp, packet);
    return;
  }
  const std::uint8_t syndrome = p.aeth->syndrome;
  if ((syndrome & 0x60) != 0) {
    on_nak(*qp, syndrome, psn);
    return;
  }
  if (retire_through(*qp, psn)) progress(*qp);
  // An ACK at or past an unanswered READ's or atomic's PSNs: the responder
  // has executed it, so its responses were lost (an implied NAK).
  if (!qp->outstanding.empty()) {
    const SendWork& front = qp->outstanding.front();
    if (front.read_or_atomic && front.sent > 0 && psn_diff(psn, psn_add(front.first_psn, front.responses)) >= 0)
      implied_nak(*qp);
  }
}

void Completer::handle_read_or_atomic_response(QpContext& qp,
                                               const packet::ReceivedPacket& packet) {
  const packet::RocePacket& p = packet.packet;
  const std::uint32_t psn = p.bth.psn;
  const std::uint8_t opcode = p.bth.opcode;
  // A READ or atomic response acknowledges every earlier request.
  if (retire_through(qp, psn_add(psn, kPsnMask))) progress(qp);
  if (qp.outstanding.empty()) return;  // a duplicate of one completed
  SendWork& work = qp.outstanding.front();
  if (!work.read_or_atomic || psn_diff(psn, work.first_psn) < 0) return;  // a duplicate
  if (psn_diff(psn, work.last_psn()) > 0) {
    // The response of a later READ or atomic: the front's were lost.
    implied_nak(qp);
    return;
  }
  const std::uint32_t expected = psn_add(work.first_psn, work.responses);
  if (psn_diff(psn, expected) < 0) return;  // a duplicate (a retry's responses overlap)
  if (psn != expected) {
    implied_nak(qp);  // a READ response skipped one: it was lost
    return;
  }
  const bool atomic = opcode == kAtomicAcknowledge;
  const bool is_read = work.wqe.opcode == IBV_WR_RDMA_READ;
  if (atomic == is_read || (!atomic && (opcode < kReadResponseFirst || opcode > kReadResponseOnly)))
    return;  // not a response this WQE can have
  // The response is taken before its data is written (which may wait), so a
  // timeout meanwhile sees it.
  ++work.responses;
  // Each response acknowledges its PSN, so a long READ moves the window
  // packet by packet: the response that opens it for the next request
  // packet wakes the requester (else the next READ would wait for this one's
  // last response, a round trip lost per READ longer than half the window).
  const std::uint32_t window = shared_.config().max_unacked_packets;
  const std::uint32_t next = qp.next_request_psn();
  const bool was_closed = !qp.in_window(next, window);
  qp.acked_psn = psn_add(psn, 1);
  if (was_closed && qp.in_window(next, window)) shared_.contexts().wake_sender(qp);
  progress(qp);
  if (atomic) {
    std::shared_ptr<Bytes> bytes = atomic_results_.take(8);
    const std::uint64_t original = p.atomic_ack_eth->original_data;
    for (int i = 0; i < 8; ++i) (*bytes)[i] = static_cast<std::uint8_t>(original >> (8 * i));
    requests_for(writes_, DmaOp::kWrite, work.local.segments, 0, 8, bytes->data());
    for (const DmaRequest& r : writes_) dma_.issue(r, bytes, false);
  } else {
    const auto offset = static_cast<std::uint64_t>(psn_diff(psn, work.first_psn)) * qp.pmtu;
    const std::uint64_t length = p.payload_length;
    if (length > 0 && offset + length <= work.wqe.length) {
      std::uint8_t* data = const_cast<std::uint8_t*>(packet.frame->data() + p.payload_offset);
      requests_for(writes_, DmaOp::kWrite, work.local.segments, offset, length, data,
                   &work.local_cursor);
      for (const DmaRequest& r : writes_) dma_.issue(r, packet.frame, false);
    }
  }
  // Issuing may have waited: the QP may have failed meanwhile (then the
  // requester flushes the WQE), and the front is looked up again.
  if (qp.state != IBV_QPS_RTS || qp.outstanding.empty()) return;
  const SendWork& front = qp.outstanding.front();
  if (front.read_or_atomic && front.responses == front.packets) retire_front(qp, IBV_WC_SUCCESS);
}

bool Completer::retire_through(QpContext& qp, std::uint32_t psn) {
  bool retired = false;
  // A WQE whose last PSN is acknowledged is done even if a go-back-N had
  // rewound it (it need not be sent again): the responder has it all.
  while (!qp.outstanding.empty()) {
    const SendWork& front = qp.outstanding.front();
    if (front.read_or_atomic || psn_diff(front.last_psn(), psn) > 0) break;
    retire_front(qp, IBV_WC_SUCCESS);
    retired = true;
  }
  if (retired) qp.rnr_retries_left = qp.rnr_retry;
  // Acknowledged: through `psn`, but never past a READ's or atomic's first
  // missing response (an ACK past it implies the responses were lost: the
  // timer must keep running for them).
  std::uint32_t acked = psn_add(psn, 1);
  if (!qp.outstanding.empty() && qp.outstanding.front().read_or_atomic) {
    const SendWork& front = qp.outstanding.front();
    const std::uint32_t missing = psn_add(front.first_psn, front.responses);
    if (psn_diff(acked, missing) > 0) acked = missing;
  }
  if (psn_diff(acked, qp.acked_psn) <= 0) return false;
  qp.acked_psn = acked;
  shared_.contexts().wake_sender(qp);
  return true;
}

void Completer::progress(QpContext& qp) {
  qp.retries_left = qp.retry_cnt;
  qp.retry_started = false;
  qp.timeouts_in_row = 0;
  shared_.ack_timer().restart(qp);
}

void Completer::retire_front(QpContext& qp, ibv_wc_status status) {
  // What the CQE needs is read before the pop: the next WQE started may take the slot.
  const SendWork& work = qp.outstanding.front();
  const bool read_or_atomic = work.read_or_atomic;
  const bool completes = status != IBV_WC_SUCCESS || work.wqe.signaled;
  const std::uint32_t ring_end = work.wqe.ring_end;
  ibv_wc wc;
  wc.wr_id = work.wqe.wr_id;
  wc.status = status;
  wc.opcode = wc_opcode_of(work.wqe.opcode);
  wc.byte_len = work.wqe.length;
  wc.qp_num = qp.qpn;
  qp.pop_outstanding();
  ++qp.send_completed;
  if (read_or_atomic && qp.rd_atomic_outstanding > 0) --qp.rd_atomic_outstanding;
  shared_.ack_timer().restart(qp);
  shared_.contexts().wake_sender(qp);
  if (completes) shared_.write_cqe(qp.send_cqn, wc, dma_, ring_end);
}

void Completer::on_nak(QpContext& qp, std::uint8_t syndrome, std::uint32_t psn) {
  // A NAK for a PSN already acknowledged is older than the responses that
  // acknowledged it (delayed or duplicated on the way): a duplicate response,
  // which the requester discards (IBTA 9.7.5.1.x). Acting on it would
  // go back over packets the responder already has.
  if (psn_diff(psn, qp.acked_psn) < 0) {
    ++shared_.stats().stale_naks;
    return;
  }
  // A NAK acknowledges every request before its PSN.
  if (retire_through(qp, psn_add(psn, kPsnMask))) progress(qp);
  SendWork* work = qp.work_holding(psn);
  if (work == nullptr) return;  // stale: nothing outstanding at that PSN
  if (syndrome == kNakSequence) {
    // The responder saw a later PSN than it expected: go back to `psn`,
    // once per loss (the responder NAKs a sequence error once).
    ++shared_.stats().packet_seq_err;
    if (!qp.retry_started) retry(qp, psn);
    return;
  }
  if ((syndrome & 0x60) == kRnrNak) {
    ++shared_.stats().rnr_nak_retry_err;
    // An RNR NAK is an answer: the transport timer stops (the resend starts
    // it again), so RNR waits use rnr_retry, never retry_cnt.
    AckTimer::stop(qp);
    if (qp.rnr_retry != 7) {
      if (qp.rnr_retries_left == 0) {
        // Out of RNR retries: the WQE ends in error (it is the front now).
        retire_front(qp, IBV_WC_RNR_RETRY_EXC_ERR);
        shared_.set_error(qp);
        return;
      }
      --qp.rnr_retries_left;
    }
    // Resend from `psn` once the NAK's timer has passed.
    qp.rewind_to(psn);
    qp.resume_at = sim_now() + sc_core::sc_time(rnr_timer_us(syndrome), sc_core::SC_US);
    shared_.contexts().rnr_held().insert(qp.qpn);
    shared_.contexts().wake_sender(qp);
    return;
  }
  // Invalid request, remote access or remote operational error.
  retire_front(qp, nak_status(syndrome));
  shared_.set_error(qp);
}

void Completer::implied_nak(QpContext& qp) {
  ++shared_.stats().implied_nak_seq_err;
  if (qp.retry_started) return;  // already going back
  const SendWork& front = qp.outstanding.front();
  retry(qp, psn_add(front.first_psn, front.responses));
}

void Completer::retry(QpContext& qp, std::uint32_t psn) {
  if (qp.retries_left == 0) {
    // retry_cnt exhausted (IBTA 9.7.6.1.3): the oldest WQE completes with
    // IBV_WC_RETRY_EXC_ERR and the QP goes to ERR; the requester's flush
    // writes its CQE (the WQE's error) and flushes the rest.
    ++shared_.stats().retry_exceeded;
    qp.outstanding.front().error = IBV_WC_RETRY_EXC_ERR;
    shared_.set_error(qp);
    return;
  }
  --qp.retries_left;
  qp.retry_started = true;
  AckTimer::stop(qp);  // started again by the first packet sent again
  qp.rewind_to(psn);
  shared_.contexts().wake_sender(qp);
}

void Completer::expire_ack_timers() {
  AckTimer& timer = shared_.ack_timer();
  timer.fired();
  const sc_core::sc_time now = sim_now();
  expired_.clear();
  while (QpContext* qp = timer.next_due(now, shared_.contexts())) {
    if (qp->ack_deadline == sc_core::SC_ZERO_TIME) continue;
    if (qp->state != IBV_QPS_RTS || !qp->awaiting_response()) {
      AckTimer::stop(*qp);
      continue;
    }
    if (qp->ack_deadline > now) {
      timer.requeue(*qp);
      continue;
    }
    expired_.push_back(qp);
  }
  // Expired: no response made progress for a whole period. Served in QP
  // number order, as one pass over the QPs would.
  std::sort(expired_.begin(), expired_.end(),
            [](const QpContext* x, const QpContext* y) { return x->qpn < y->qpn; });
  for (QpContext* qp : expired_) {
    // Counted as mlx5 counts local_ack_timeout_err: the expiries that retry.
    if (qp->retries_left > 0) ++shared_.stats().local_ack_timeout_err;
    ++qp->timeouts_in_row;
    retry(*qp, qp->acked_psn);
  }
  timer.schedule_next();
}

}  // namespace rnicsim
