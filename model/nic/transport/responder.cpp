// Responder: takes request packets in order, checks their PSN against the
// QP's expected PSN, places WRITE and SEND payload by DMA (SENDs into the
// receive WQE they consume), answers READs and atomics, and acknowledges
// (coalesced). Errors end as the IB spec says: a bad R_Key or access is a
// remote access error NAK, a SEND longer than its receive buffer an invalid
// request NAK, both moving this QP to ERR; no receive WQE is an RNR NAK.
#include "nic/transport/responder.hpp"

#include <cstring>

#include "common/message_breakdown.hpp"
#include "common/time_units.hpp"
#include "nic/packet/segmentation.hpp"
#include "nic/protection/request_checks.hpp"

namespace rnicsim {
namespace {

constexpr std::uint8_t kReadResponseFirst = 0x0D, kReadResponseMiddle = 0x0E,
                       kReadResponseLast = 0x0F, kReadResponseOnly = 0x10, kAcknowledge = 0x11,
                       kAtomicAcknowledge = 0x12, kReadRequest = 0x0C, kCompareSwap = 0x13,
                       kFetchAdd = 0x14;
// AETH syndromes (REFERENCE section 5).
constexpr std::uint8_t kAckUnlimitedCredits = 0x1F;
constexpr std::uint8_t kRnrNak = 0x20;
constexpr std::uint8_t kNakSequence = 0x60, kNakRemoteAccess = 0x62, kNakRemoteOperational = 0x63;

struct RequestKind {
  bool send = false;
  bool with_imm = false;
  bool first = false;
  bool last = false;
};

// SEND 0x00-0x05, WRITE 0x06-0x0B.
RequestKind request_kind(std::uint8_t opcode) {
  RequestKind k;
  k.send = opcode <= 0x05;
  const std::uint8_t o = k.send ? opcode : static_cast<std::uint8_t>(opcode - 0x06);
  k.first = o == 0 || o == 4 || o == 5;
  k.last = o == 2 || o == 3 || o == 4 || o == 5;
  k.with_imm = o == 3 || o == 5;
  return k;
}

std::uint64_t load_le64(const std::uint8_t* p) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(p[i]) << (8 * i);
  return v;
}

}  // namespace

Responder::Responder(const sc_core::sc_module_name& name, TransportShared& shared, DmaPort& port,
                     MemoryTranslation& translation, Channel<packet::ReceivedPacket>& queue)
    : sc_core::sc_module(name),
      in("in"),
      sender("sender", dma_, sc_core::SC_ZERO_TIME),
      shared_(shared),
      dma_(port),
      translation_(translation),
      queue_(queue),
      inbox_(shared.cycles(shared.config().responder_cycles)) {
  sender.on_read_failed(
      [this](const packet::TransmitRequest& response) { response_read_failed(response); });
  SC_THREAD(run);
  SC_THREAD(run_recv_flush);
}

void Responder::end_of_elaboration() { inbox_.attach(in.get_interface()); }

void Responder::run() {
  for (;;) {
    packet::ReceivedPacket packet;
    const sc_core::sc_time popped_at = inbox_.next(in, packet);
    ++shared_.stats().activations;
    handle(packet, popped_at);
    shared_.stats().responder_busy += sim_now() - popped_at;
    // Nothing waiting: the ACKs held back for coalescing go out now.
    if (queue_.size() == 0) {
      for (std::uint32_t qpn : owing_acks_) {
        QpContext* qp = shared_.contexts().qp(qpn);
        if (qp != nullptr && qp->acks_owed > 0 && qp->responder_ready())
          send_ack(*qp, kAckUnlimitedCredits, psn_add(qp->expected_psn, kPsnMask));
      }
      owing_acks_.clear();
    }
  }
}

void Responder::handle(const packet::ReceivedPacket& packet, const sc_core::sc_time& popped_at) {
  const packet::Bth& bth = packet.packet.bth;
  QpContext* qp = shared_.contexts().qp(bth.dest_qp);
  ResponderQpView view;
  if (qp != nullptr && !qp->destroyed && qp->responder_ready()) {
    view.ready = true;
    view.expected_psn = qp->expected_psn;
    view.pmtu = qp->pmtu;
    view.in_message = qp->inbound.active;
    view.message_is_send = qp->inbound.is_send;
  }
  const RequestCheck verdict = check_request_header(view, packet.packet);
  count(verdict);
  switch (verdict) {
    case RequestCheck::kNoQp:  // a QP in RESET, INIT or ERR drops requests silently
      ++shared_.stats().dropped_no_qp;
      return;
    case RequestCheck::kWrongTransport:
      ++shared_.stats().dropped_wrong_transport;
      return;
    default:
      break;
  }
  MessageBreakdown::instance().mark(*this, "receive pipeline", popped_at);
  shared_.touch_qp(*qp, dma_);
  if (verdict == RequestCheck::kDuplicate) {
    // A duplicate (the requester went back after a loss, or the wire
    // duplicated it), IBTA 9.7.5.1: a SEND or WRITE is acknowledged again and
    // not executed again; a READ is read again from memory; an atomic is
    // answered with the value it returned the first time.
    ++shared_.stats().duplicate_requests;
    if (bth.opcode == kReadRequest) {
      handle_read(*qp, packet, /*duplicate=*/true);
    } else if (bth.opcode == kCompareSwap || bth.opcode == kFetchAdd) {
      answer_duplicate_atomic(*qp, bth.psn);
    } else {
      send_ack(*qp, kAckUnlimitedCredits, psn_add(qp->expected_psn, kPsnMask));
    }
    return;
  }
  if (verdict == RequestCheck::kOutOfSequence) {
    ++shared_.stats().out_of_sequence;
    if (!qp->nak_outstanding) {
      qp->nak_outstanding = true;
      send_ack(*qp, kNakSequence, qp->expected_psn);
    }
    return;
  }
  qp->nak_outstanding = false;
  if (verdict != RequestCheck::kAccepted) {
    fail_message(*qp, nak_syndrome(verdict), IBV_WC_SUCCESS, bth.psn);
    return;
  }
  const std::uint8_t opcode = bth.opcode;
  if (opcode <= 0x0B) {
    handle_write_or_send(*qp, packet);
  } else if (opcode == kReadRequest) {
    handle_read(*qp, packet, /*duplicate=*/false);
  } else {
    handle_atomic(*qp, packet);
  }
}

void Responder::count(RequestCheck verdict) {
  ++shared_.stats().request_checks[static_cast<std::size_t>(verdict)];
}

bool Responder::reject(QpContext& qp, RequestCheck verdict, std::uint32_t psn,
                       ibv_wc_status recv_status) {
  if (verdict == RequestCheck::kAccepted) return false;
  count(verdict);
  if (verdict == RequestCheck::kNoRemoteRight) ++shared_.stats().resp_remote_access_errors;
  fail_message(qp, nak_syndrome(verdict), recv_status, psn);
  return true;
}

bool Responder::fetch_recv(QpContext& qp) {
  while (qp.recv_ready.empty()) {
    if (!issue_recv_fetch(qp, /*wait_for_room=*/true)) return false;  // nothing posted
    if (!land_recv_fetch(qp)) return false;                           // reset meanwhile
  }
  return true;
}

void Responder::refill_recv(QpContext& qp) {
  dma_.pump();
  if (qp.recv_fetch_in_flight) {
    if (qp.recv_fetch_landing || !dma_.done(qp.recv_fetch_ticket)) return;
    land_recv_fetch(qp);  // done: takes it without waiting
  }
  issue_recv_fetch(qp, /*wait_for_room=*/false);
}

bool Responder::issue_recv_fetch(QpContext& qp, bool wait_for_room) {
  if (qp.recv_fetch_in_flight) return true;
  if (wait_for_room) {
    dma_.wait_for_room();
    if (qp.recv_fetch_in_flight) return true;  // issued meanwhile
  } else if (!dma_.has_room()) {
    return false;
  }
  const std::uint32_t posted = qp.recv_producer - qp.recv_fetched;
  const auto held = static_cast<std::uint32_t>(qp.recv_ready.size());
  const std::uint32_t depth = shared_.config().recv_prefetch;
  if (posted == 0 || held >= depth) return false;
  const std::uint32_t count =
      std::min({posted, depth - held, qp.recv_ring.contiguous(qp.recv_fetched)});
  std::shared_ptr<Bytes> bytes = recv_fetch_buffers_.take(std::size_t{count} * kRecvWqeBytes);
  // The port has room, so issue() does not wait: nothing changes in between.
  const std::uint32_t ticket = dma_.issue(DmaRequest::read(0, qp.recv_ring.address(qp.recv_fetched),
                                                           count * kRecvWqeBytes, bytes->data()),
                                          bytes);
  qp.recv_fetch_in_flight = true;
  qp.recv_fetch_ticket = ticket;
  qp.recv_fetch_count = count;
  qp.recv_fetch_bytes = std::move(bytes);
  qp.recv_fetched += count;
  ++shared_.stats().wqe_fetches;
  return true;
}

bool Responder::land_recv_fetch(QpContext& qp) {
  const std::uint32_t resets = qp.resets;
  while (qp.recv_fetch_in_flight && qp.recv_fetch_landing) {
    sc_core::wait(recv_fetch_landed_);  // the other thread is landing it
    if (qp.resets != resets) return false;
  }
  if (!qp.recv_fetch_in_flight) return true;
  qp.recv_fetch_landing = true;
  const std::shared_ptr<Bytes> bytes = qp.recv_fetch_bytes;
  const std::uint32_t count = qp.recv_fetch_count;
  dma_.wait(qp.recv_fetch_ticket);
  recv_fetch_landed_.notify(sc_core::SC_ZERO_TIME);
  // A QP reset during the wait wiped the fetch with its context: these WQEs
  // are not the QP's now.
  if (qp.resets != resets) return false;
  qp.recv_fetch_in_flight = false;
  qp.recv_fetch_landing = false;
  qp.recv_fetch_bytes.reset();
  for (std::uint32_t i = 0; i < count; ++i) {
    std::optional<RecvWqe> wqe =
        decode_recv_wqe(bytes->data() + std::size_t{i} * kRecvWqeBytes, nullptr);
    RecvWork work;
    if (wqe) {
      work.wqe = std::move(*wqe);
      for (const ibv_sge& sge : work.wqe.sges) work.capacity += sge.length;
    }
    qp.recv_ready.push_back(std::move(work));
  }
  return true;
}

void Responder::handle_write_or_send(QpContext& qp, const packet::ReceivedPacket& packet) {
  const packet::RocePacket& p = packet.packet;
  const RequestKind kind = request_kind(p.bth.opcode);
  InboundMessage& message = qp.inbound;
  const bool needs_recv = kind.send || kind.with_imm;
  if (kind.first) {
    message.reset();
    message.active = true;
    message.is_send = kind.send;
    if (needs_recv && !fetch_recv(qp)) {
      // No receive WQE: RNR NAK with this QP's timer; the requester resends
      // from this PSN after it. The rest of the message is dropped.
      message.active = false;
      ++shared_.stats().rnr_naks_sent;
      qp.nak_outstanding = true;
      send_ack(qp, static_cast<std::uint8_t>(kRnrNak | (qp.min_rnr_timer & 0x1F)), p.bth.psn);
      return;
    }
    if (kind.send) {
      const RecvWork& recv = qp.recv_ready.front();
      for (const ibv_sge& sge : recv.wqe.sges) {
        if (sge.length == 0) continue;
        if (translation_.translate(sge.lkey, sge.addr, sge.length, IBV_ACCESS_LOCAL_WRITE, qp.pd,
                                   message.target.segments) != TranslationStatus::kOk) {
          // The receive buffer itself is bad: a local protection error at the
          // responder, reported to the requester as a remote operational error.
          fail_message(qp, kNakRemoteOperational, IBV_WC_LOC_PROT_ERR, p.bth.psn);
          return;
        }
      }
      message.target_length = recv.capacity;
    } else {
      const packet::Reth& reth = *p.reth;
      message.target_length = reth.dma_length;
      if (reject(qp, check_remote_right(qp.access, p.bth.opcode), p.bth.psn)) return;
      if (reth.dma_length > 0) {
        message.target.status =
            translation_.translate(reth.rkey, reth.virtual_address, reth.dma_length,
                                   IBV_ACCESS_REMOTE_WRITE, qp.pd, message.target.segments);
        if (message.target.status != TranslationStatus::kOk) {
          key_rejected(qp, p.bth.psn);
          return;
        }
      }
    }
    MessageBreakdown::instance().mark(*this, "remote key translated");
  }
  if (kind.with_imm) {
    message.with_imm = true;
    message.imm = p.imm_dt->value;
  }
  const std::uint64_t length = p.payload_length;
  // A SEND longer than its receive buffer (a local length error in its
  // receive CQE), a WRITE beyond or short of its RETH's length.
  const RequestCheck fits =
      check_message_length(kind.send, kind.last, message.offset, length, message.target_length);
  if (fits == RequestCheck::kMessageTooLong && kind.send) ++shared_.stats().resp_local_length_error;
  if (reject(qp, fits, p.bth.psn, kind.send ? IBV_WC_LOC_LEN_ERR : IBV_WC_SUCCESS)) return;
  if (length > 0) {
    std::uint8_t* bytes = const_cast<std::uint8_t*>(packet.frame->data() + p.payload_offset);
    requests_for(writes_, DmaOp::kWrite, message.target.segments, message.offset, length, bytes,
                 &message.target_cursor);
    for (const DmaRequest& r : writes_) qp.unacked_writes.push_back(dma_.issue(r, packet.frame));
  }
  message.offset += length;
  qp.expected_psn = psn_add(qp.expected_psn, 1);
  if (kind.last) {
    qp.msn = psn_add(qp.msn, 1);
    message.active = false;
    // The WQE the message's first packet found is still there unless the
    // QP left RTR/RTS meanwhile (its receives are then flushed, not completed).
    if (needs_recv && fetch_recv(qp)) {
      const RecvWork recv = std::move(qp.recv_ready.front());
      qp.recv_ready.pop_front();
      refill_recv(qp);
      recv_completion(qp, recv, IBV_WC_SUCCESS, static_cast<std::uint32_t>(message.offset),
                      message.with_imm, message.imm, !kind.send);
    }
  }
  maybe_ack(qp, p.bth.psn, p.bth.ack_req);
}

void Responder::handle_read(QpContext& qp, const packet::ReceivedPacket& packet, bool duplicate) {
  const packet::RocePacket& p = packet.packet;
  const packet::Reth& reth = *p.reth;
  TranslationResult& source = read_source_;
  source.status = TranslationStatus::kOk;
  source.segments.clear();
  if (reject(qp, check_remote_right(qp.access, p.bth.opcode), p.bth.psn)) return;
  if (reth.dma_length > 0) {
    source.status = translation_.translate(reth.rkey, reth.virtual_address, reth.dma_length,
                                           IBV_ACCESS_REMOTE_READ, qp.pd, source.segments);
    if (source.status != TranslationStatus::kOk) {
      key_rejected(qp, p.bth.psn);
      return;
    }
  }
  MessageBreakdown::instance().mark(*this, "remote key translated");
  // Acknowledgements held back go first: responses leave in PSN order. (Not
  // before a duplicate's: they acknowledge PSNs after it.)
  if (!duplicate && qp.acks_owed > 0)
    send_ack(qp, kAckUnlimitedCredits, psn_add(qp.expected_psn, kPsnMask));
  const std::uint32_t count = packet::packet_count(reth.dma_length, qp.pmtu);
  // A duplicate READ (a retry asking for responses that were lost) is read
  // again from the memory its RETH names; it is not a new message and does
  // not move the expected PSN.
  if (!duplicate) qp.msn = psn_add(qp.msn, 1);
  SegmentCursor cursor;
  for (std::uint32_t i = 0; i < count; ++i) {
    sc_core::wait(shared_.cycles(shared_.config().responder_cycles));
    // A response whose source could not be read has moved the QP to ERR
    // meanwhile (response_read_failed): no further response is made.
    if (qp.state == IBV_QPS_ERR) return;
    // The requester already asks again from a PSN of this stream (a response
    // was lost): the rest of it would be dropped as out of sequence, so the
    // stream restarts there instead, as rxe's responder does (a duplicate
    // READ re-points its response resource). A copy of the request the wire
    // duplicated looks the same and restarts it too: bandwidth lost, nothing
    // wrong.
    if (i > 0 && retry_waiting(qp, p.bth.psn, i)) break;
    // The QP's rate limiter paces its READ responses too (the CNPs for
    // marked responses come here). The responder waits: its other QPs'
    // requests wait behind this READ, as they wait behind its cycles.
    if (shared_.paced(qp)) {
      sc_core::wait(picoseconds(shared_.rate_limiters().next_send_ps(qp.qpn)) - sim_now());
      if (qp.state == IBV_QPS_ERR) return;
    }
    packet::TransmitRequest r;
    r.single_packet = true;
    r.source_qpn = qp.qpn;
    packet::RocePacket& h = r.header_template;
    h = shared_.header_template(qp);
    const bool only = count == 1, first = i == 0, last = i + 1 == count;
    h.bth.opcode = only ? kReadResponseOnly
                        : first ? kReadResponseFirst : last ? kReadResponseLast : kReadResponseMiddle;
    h.bth.psn = psn_add(p.bth.psn, i);
    if (first || last) h.aeth = packet::Aeth{kAckUnlimitedCredits, qp.msn};
    const std::uint64_t offset = std::uint64_t{i} * qp.pmtu;
    const auto length =
        static_cast<std::uint32_t>(std::min<std::uint64_t>(qp.pmtu, reth.dma_length - offset));
    ++shared_.stats().response_packets;
    shared_.count_sent(qp, h, reth.dma_length == 0 ? 0 : length);
    sender.send(std::move(r), &source.segments, offset, reth.dma_length == 0 ? 0 : length, {},
                &cursor);
  }
  if (duplicate) return;
  qp.expected_psn = psn_add(qp.expected_psn, count);
  qp.last_acked_psn = psn_add(qp.expected_psn, kPsnMask);
}

bool Responder::retry_waiting(const QpContext& qp, std::uint32_t first_psn,
                              std::uint32_t sent) const {
  const packet::ReceivedPacket* next = queue_.peek();
  if (next == nullptr) return false;
  const packet::Bth& bth = next->packet.bth;
  return bth.dest_qp == qp.qpn && bth.opcode == kReadRequest &&
         psn_diff(bth.psn, first_psn) >= 0 && psn_diff(bth.psn, psn_add(first_psn, sent)) < 0;
}

void Responder::answer_duplicate_atomic(QpContext& qp, std::uint32_t psn) {
  // An atomic is executed at most once: a duplicate gets the original value
  // saved when it ran. One too old to be saved is dropped (as rxe does).
  for (const QpContext::SavedAtomic& saved : qp.saved_atomics) {
    if (saved.psn != psn) continue;
    send_atomic_ack(qp, psn, saved.original, {});
    return;
  }
}

void Responder::send_atomic_ack(QpContext& qp, std::uint32_t psn, std::uint64_t original,
                                const std::vector<std::uint32_t>& after) {
  packet::TransmitRequest r = aeth_response(qp, kAtomicAcknowledge, psn, kAckUnlimitedCredits);
  r.header_template.atomic_ack_eth = packet::AtomicAckEth{original};
  ++shared_.stats().response_packets;
  sender.send(std::move(r), nullptr, 0, 0, after);
}

void Responder::handle_atomic(QpContext& qp, const packet::ReceivedPacket& packet) {
  const packet::RocePacket& p = packet.packet;
  const packet::AtomicEth& a = *p.atomic_eth;
  if (reject(qp, check_remote_right(qp.access, p.bth.opcode), p.bth.psn)) return;
  if (reject(qp, check_atomic_alignment(a.virtual_address), p.bth.psn)) return;
  atomic_target_.clear();
  if (translation_.translate(a.rkey, a.virtual_address, 8, IBV_ACCESS_REMOTE_ATOMIC, qp.pd,
                             atomic_target_) != TranslationStatus::kOk) {
    key_rejected(qp, p.bth.psn);
    return;
  }
  // Read, modify, write: the responder handles one request at a time, so no
  // other NIC access comes between the read and the write.
  const std::uint64_t address = atomic_target_.front().address;
  std::uint8_t value[8];
  if (!dma_.read(address, value, 8)) {
    // Host memory answered Unsupported Request (a page-table entry naming no
    // memory, say): nothing is modified and nothing read is returned; the
    // responder NAKs with a remote operational error (syndrome 0x63, REFERENCE
    // section 5; IBV_WC_REM_OP_ERR at the requester) and goes to ERR.
    fail_message(qp, kNakRemoteOperational, IBV_WC_SUCCESS, p.bth.psn);
    return;
  }
  const std::uint64_t original = load_le64(value);
  const std::uint64_t updated =
      p.bth.opcode == kFetchAdd ? original + a.swap_add
                                : (original == a.compare ? a.swap_add : original);
  std::shared_ptr<Bytes> out = atomic_results_.take(8);
  for (int i = 0; i < 8; ++i) (*out)[i] = static_cast<std::uint8_t>(updated >> (8 * i));
  atomic_written_.assign(1, dma_.issue(DmaRequest::write(0, address, 8, out->data()), out));
  if (qp.acks_owed > 0) send_ack(qp, kAckUnlimitedCredits, psn_add(qp.expected_psn, kPsnMask));
  qp.msn = psn_add(qp.msn, 1);
  const std::size_t keep = qp.max_dest_rd_atomic;
  if (qp.saved_atomics.size() < keep) {
    qp.saved_atomics.push_back({p.bth.psn, original});
  } else {
    qp.saved_atomics[qp.next_saved_atomic % keep] = {p.bth.psn, original};
    qp.next_saved_atomic = (qp.next_saved_atomic + 1) % keep;
  }
  send_atomic_ack(qp, p.bth.psn, original, atomic_written_);
  qp.expected_psn = psn_add(qp.expected_psn, 1);
  qp.last_acked_psn = p.bth.psn;
}

void Responder::maybe_ack(QpContext& qp, std::uint32_t psn, bool requested) {
  if (!requested) return;
  ++qp.acks_owed;
  if (qp.acks_owed >= shared_.config().ack_coalesce_messages) {
    send_ack(qp, kAckUnlimitedCredits, psn);
  } else if (qp.acks_owed == 1) {
    owing_acks_.push_back(qp.qpn);
  }
}

packet::TransmitRequest Responder::aeth_response(const QpContext& qp, std::uint8_t opcode,
                                                std::uint32_t psn, std::uint8_t syndrome) const {
  packet::TransmitRequest r;
  r.single_packet = true;
  r.source_qpn = qp.qpn;
  r.header_template = shared_.header_template(qp);
  r.header_template.bth.opcode = opcode;
  r.header_template.bth.psn = psn;
  r.header_template.aeth = packet::Aeth{syndrome, qp.msn};
  return r;
}

void Responder::send_ack(QpContext& qp, std::uint8_t syndrome, std::uint32_t psn) {
  packet::TransmitRequest r = aeth_response(qp, kAcknowledge, psn, syndrome);
  if ((syndrome & 0x60) == 0) {
    ++shared_.stats().acks_sent;
    qp.acks_owed = 0;
    qp.last_acked_psn = psn;
  } else {
    ++shared_.stats().naks_sent;
  }
  ++shared_.stats().response_packets;
  // An ACK or NAK leaves once the payload it covers is in host memory.
  sender.send(std::move(r), nullptr, 0, 0, qp.unacked_writes);
  qp.unacked_writes.clear();  // keeps its capacity for the next ACK's
}

void Responder::key_rejected(QpContext& qp, std::uint32_t psn) {
  // The key, its PD, its rights or the bounds (check_region_access, made by
  // the translation): a remote access error.
  ++shared_.stats().key_rejections;
  ++shared_.stats().resp_remote_access_errors;
  fail_message(qp, kNakRemoteAccess, IBV_WC_SUCCESS, psn);
}

void Responder::fail_message(QpContext& qp, std::uint8_t nak, ibv_wc_status recv_status,
                             std::uint32_t psn) {
  // Class C and D errors (IBTA 9.9.3): NAK the request and move this QP to
  // ERR. A receive WQE the failed SEND had taken completes with its error.
  if (qp.acks_owed > 0) send_ack(qp, kAckUnlimitedCredits, psn_add(psn, kPsnMask));
  send_ack(qp, nak, psn);
  if (recv_status != IBV_WC_SUCCESS && !qp.recv_ready.empty()) {
    const RecvWork recv = std::move(qp.recv_ready.front());
    qp.recv_ready.pop_front();
    recv_completion(qp, recv, recv_status, 0, false, 0, false);
  }
  qp.inbound.reset();
  shared_.set_error(qp);
}

void Responder::response_read_failed(const packet::TransmitRequest& response) {
  // Host memory answered Unsupported Request for a READ response's payload
  // (a page-table entry naming no memory, say): the response is not sent and
  // the READ is NAKed at its PSN as a remote operational error; the QP goes
  // to ERR. Nothing the QP queued after it goes out (later responses of the
  // READ, ACKs of later requests): the requester flushes what follows.
  QpContext* qp = shared_.contexts().qp(response.source_qpn);
  if (qp == nullptr || qp->state == IBV_QPS_ERR) return;
  sender.discard_queued_from(qp->qpn);
  send_ack(*qp, kNakRemoteOperational, response.header_template.bth.psn);
  qp->inbound.reset();
  shared_.set_error(*qp);
}

void Responder::recv_completion(QpContext& qp, const RecvWork& recv, ibv_wc_status status,
                                std::uint32_t byte_len, bool with_imm, std::uint32_t imm,
                                bool rdma_imm) {
  ibv_wc wc;
  wc.wr_id = recv.wqe.wr_id;
  wc.status = status;
  wc.opcode = rdma_imm ? IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RECV;
  wc.byte_len = byte_len;
  wc.imm_data = with_imm ? imm : 0;
  wc.wc_flags = with_imm ? IBV_WC_WITH_IMM : 0;
  wc.qp_num = qp.qpn;
  shared_.write_cqe(qp.recv_cqn, wc, dma_);
}

void Responder::run_recv_flush() {
  // Receive WQEs of a QP in ERR complete with IBV_WC_WR_FLUSH_ERR, in order.
  for (;;) {
    sc_core::wait(shared_.contexts().recv_work);
    bool more = true;
    while (more) {
      more = false;
      std::map<std::uint32_t, QpContext*>& error_qps = shared_.contexts().error_qps();
      for (auto it = error_qps.begin(); it != error_qps.end();) {
        QpContext& qp = *it->second;
        if (qp.state != IBV_QPS_ERR || qp.destroyed) {
          it = error_qps.erase(it);  // left ERR (reset) or destroyed: nothing to flush
          continue;
        }
        ++it;
        if (qp.recv_ready.empty() && !fetch_recv(qp)) continue;
        if (qp.state != IBV_QPS_ERR || qp.recv_ready.empty()) {
          more = true;  // the QP changed during the fetch: look again
          break;
        }
        const RecvWork recv = std::move(qp.recv_ready.front());
        qp.recv_ready.pop_front();
        recv_completion(qp, recv, IBV_WC_WR_FLUSH_ERR, 0, false, 0, false);
        more = true;
        break;  // the table may have changed during the DMA
      }
    }
  }
}

}  // namespace rnicsim
