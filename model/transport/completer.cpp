// Completer: takes the responses to this NIC's requests. An ACK retires
// every WQE up to its PSN; READ responses are placed in the local buffer by
// DMA and the last one retires the READ; an atomic ACK's original value is
// written to the local buffer. A retired WQE gets a CQE when it was
// signaled, written after its data (one DMA client: posted writes stay in
// order). NAKs end the WQE in error and move the QP to ERR; an RNR NAK
// holds the requester for the NAK's timer and resends from its PSN.
#include "common/message_breakdown.hpp"
#include "common/time_units.hpp"
#include "transport/rc_units.hpp"

namespace rnicsim {
namespace {

constexpr std::uint8_t kReadResponseFirst = 0x0D, kReadResponseLast = 0x0F,
                       kReadResponseOnly = 0x10, kAcknowledge = 0x11, kAtomicAcknowledge = 0x12;

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
}

void Completer::end_of_elaboration() { inbox_.attach(in.get_interface()); }

void Completer::run() {
  for (;;) {
    packet::ReceivedPacket packet;
    const sc_core::sc_time popped_at = inbox_.next(in, packet);
    ++shared_.stats().activations;
    handle(packet, popped_at);
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
  const std::uint32_t psn = p.bth.psn;
  const std::uint8_t opcode = p.bth.opcode;
  if (opcode == kAcknowledge) {
    const std::uint8_t syndrome = p.aeth->syndrome;
    if ((syndrome & 0x60) == 0) {
      retire_through(*qp, psn);
    } else {
      on_nak(*qp, syndrome, psn);
    }
    return;
  }
  // A READ or atomic response acknowledges every earlier request.
  retire_through(*qp, psn_add(psn, kPsnMask));
  SendWork* work = qp->outstanding.empty() ? nullptr : &qp->outstanding.front();
  if (work == nullptr || !work->read_or_atomic || qp->work_holding(psn) != work) {
    return;  // not what the QP waits for: a duplicate (issue 12 handles the rest)
  }
  if (opcode == kAtomicAcknowledge) {
    std::shared_ptr<Bytes> bytes = atomic_results_.take(8);
    const std::uint64_t original = p.atomic_ack_eth->original_data;
    for (int i = 0; i < 8; ++i) (*bytes)[i] = static_cast<std::uint8_t>(original >> (8 * i));
    if (psn_diff(psn_add(psn, 1), qp->acked_psn) > 0) qp->acked_psn = psn_add(psn, 1);
    requests_for(writes_, DmaOp::kWrite, work->local.segments, 0, 8, bytes->data());
    for (const DmaRequest& r : writes_) dma_.issue(r, bytes, false);
    retire_front(*qp, IBV_WC_SUCCESS);
    return;
  }
  if (opcode < kReadResponseFirst || opcode > kReadResponseOnly) return;
  if (psn_diff(psn_add(psn, 1), qp->acked_psn) > 0) qp->acked_psn = psn_add(psn, 1);
  const std::uint64_t offset =
      static_cast<std::uint64_t>(psn_diff(psn, work->first_psn)) * qp->pmtu;
  const std::uint64_t length = p.payload_length;
  if (length > 0 && offset + length <= work->wqe.length) {
    std::uint8_t* data = const_cast<std::uint8_t*>(packet.frame->data() + p.payload_offset);
    requests_for(writes_, DmaOp::kWrite, work->local.segments, offset, length, data,
                 &work->local_cursor);
    for (const DmaRequest& r : writes_) dma_.issue(r, packet.frame, false);
    work->received += length;
  }
  if (opcode == kReadResponseLast || opcode == kReadResponseOnly) {
    retire_front(*qp, IBV_WC_SUCCESS);
  }
}

void Completer::retire_through(QpContext& qp, std::uint32_t psn) {
  bool progress = false;
  if (psn_diff(psn_add(psn, 1), qp.acked_psn) > 0) {
    qp.acked_psn = psn_add(psn, 1);
    shared_.contexts().send_work.notify(sc_core::SC_ZERO_TIME);
  }
  while (!qp.outstanding.empty()) {
    const SendWork& front = qp.outstanding.front();
    if (front.read_or_atomic || front.sent < front.request_packets() ||
        psn_diff(front.last_psn(), psn) > 0) {
      break;
    }
    retire_front(qp, IBV_WC_SUCCESS);
    progress = true;
  }
  if (progress) qp.rnr_retries_left = qp.rnr_retry;
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
  shared_.contexts().send_work.notify(sc_core::SC_ZERO_TIME);
  if (completes) shared_.write_cqe(qp.send_cqn, wc, dma_, ring_end);
}

void Completer::on_nak(QpContext& qp, std::uint8_t syndrome, std::uint32_t psn) {
  // A NAK acknowledges every request before its PSN.
  retire_through(qp, psn_add(psn, kPsnMask));
  SendWork* work = qp.work_holding(psn);
  if (work == nullptr) return;  // stale: nothing outstanding at that PSN
  const bool rnr = (syndrome & 0x60) == 0x20;
  if (syndrome == 0x60 || rnr) {
    if (rnr && qp.rnr_retry != 7) {
      if (qp.rnr_retries_left == 0) {
        // Out of RNR retries: the WQE ends in error (it is the front now).
        retire_front(qp, IBV_WC_RNR_RETRY_EXC_ERR);
        shared_.set_error(qp);
        return;
      }
      --qp.rnr_retries_left;
    }
    // Go back N: resend from `psn`, after the RNR timer for an RNR NAK.
    qp.sent_prefix = 0;
    bool after = false;
    for (SendWork& w : qp.outstanding) {
      if (&w == work) after = true;
      if (!after) continue;
      const bool was_sent = w.sent > 0;
      w.sent = (&w == work && !w.read_or_atomic)
                   ? static_cast<std::uint32_t>(psn_diff(psn, w.first_psn))
                   : 0;
      if (w.read_or_atomic && was_sent && qp.rd_atomic_outstanding > 0) --qp.rd_atomic_outstanding;
    }
    if (rnr) {
      qp.resume_at = sim_now() + sc_core::sc_time(rnr_timer_us(syndrome), sc_core::SC_US);
    }
    shared_.contexts().send_work.notify(sc_core::SC_ZERO_TIME);
    return;
  }
  // Invalid request, remote access or remote operational error.
  retire_front(qp, nak_status(syndrome));
  shared_.set_error(qp);
}

}  // namespace rnicsim
