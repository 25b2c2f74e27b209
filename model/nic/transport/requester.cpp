// Requester: picks a QP with work (transport.qp_scheduler), fetches its WQEs, starts
// them (PSNs, local translation) and makes one request packet per turn, so
// QPs interleave packet by packet and a long message's first packet leaves
// while later ones are still being read. A QP in ERR has its WQEs flushed.
#include "common/message_breakdown.hpp"
#include "common/time_units.hpp"
#include "nic/packet/segmentation.hpp"
#include "nic/transport/requester.hpp"

namespace rnicsim {
namespace {

// RC opcodes (REFERENCE section 4).
constexpr std::uint8_t kSendFirst = 0x00, kSendMiddle = 0x01, kSendLast = 0x02,
                       kSendLastImm = 0x03, kSendOnly = 0x04, kSendOnlyImm = 0x05;
constexpr std::uint8_t kWriteFirst = 0x06, kWriteMiddle = 0x07, kWriteLast = 0x08,
                       kWriteLastImm = 0x09, kWriteOnly = 0x0A, kWriteOnlyImm = 0x0B;
constexpr std::uint8_t kReadRequest = 0x0C, kCompareSwap = 0x13, kFetchAdd = 0x14;

std::uint8_t request_opcode(ibv_wr_opcode op, std::uint32_t index, std::uint32_t count) {
  const bool only = count == 1, first = index == 0, last = index + 1 == count;
  switch (op) {
    case IBV_WR_SEND:
      return only ? kSendOnly : first ? kSendFirst : last ? kSendLast : kSendMiddle;
    case IBV_WR_SEND_WITH_IMM:
      return only ? kSendOnlyImm : first ? kSendFirst : last ? kSendLastImm : kSendMiddle;
    case IBV_WR_RDMA_WRITE:
      return only ? kWriteOnly : first ? kWriteFirst : last ? kWriteLast : kWriteMiddle;
    case IBV_WR_RDMA_WRITE_WITH_IMM:
      return only ? kWriteOnlyImm : first ? kWriteFirst : last ? kWriteLastImm : kWriteMiddle;
    case IBV_WR_RDMA_READ: return kReadRequest;
    case IBV_WR_ATOMIC_CMP_AND_SWP: return kCompareSwap;
    case IBV_WR_ATOMIC_FETCH_AND_ADD: return kFetchAdd;
  }
  return kSendOnly;
}

bool is_read_or_atomic(ibv_wr_opcode op) {
  return op == IBV_WR_RDMA_READ || op == IBV_WR_ATOMIC_CMP_AND_SWP ||
         op == IBV_WR_ATOMIC_FETCH_AND_ADD;
}

}  // namespace

Requester::Requester(const sc_core::sc_module_name& name, TransportShared& shared, DmaPort& port,
                     MemoryTranslation& translation)
    : sc_core::sc_module(name),
      sender("sender", dma_, shared.cycles(shared.config().transmit_latency_cycles)),
      shared_(shared),
      dma_(port),
      translation_(translation),
      engines_(shared.config().requester_engines) {
  if (shared_.config().engine_assignment == EngineAssignment::kStatic) {
    shared_.contexts().set_send_lanes(static_cast<std::uint32_t>(engines_.size()));
  }
  work_wake_ |= shared_.contexts().send_work;
  work_wake_ |= hold_over_;
  work_or_fetch_wake_ |= shared_.contexts().send_work;
  work_or_fetch_wake_ |= hold_over_;
  work_or_fetch_wake_ |= dma_.completion_event();
  sender.on_read_failed(
      [this](const packet::TransmitRequest& request) { payload_read_failed(request); });
  // One thread per engine; the first keeps the single engine's name.
  for (std::size_t i = 0; i < engines_.size(); ++i) {
    engines_[i].index = static_cast<std::uint32_t>(i);
    const std::string process = i == 0 ? "run" : "engine" + std::to_string(i);
    sc_core::sc_spawn_options options;
    sc_core::sc_spawn([this, i] { run(engines_[i]); }, process.c_str(), &options);
  }
}

std::vector<sc_core::sc_time> Requester::engine_busy() const {
  std::vector<sc_core::sc_time> busy;
  for (const Engine& engine : engines_) busy.push_back(engine.busy);
  return busy;
}

void Requester::payload_read_failed(const packet::TransmitRequest& request) {
  // A local DMA error (the payload's host memory answered Unsupported
  // Request): as rxe does when it cannot copy from the MR, the WQE completes
  // in IBV_WC_LOC_PROT_ERR and the QP goes to ERR, which flushes the rest.
  QpContext* qp = shared_.contexts().qp(request.source_qpn);
  if (qp == nullptr || qp->state == IBV_QPS_ERR) return;  // already failed: this WQE is flushed
  sender.discard_queued_from(qp->qpn);  // the QP's later packets do not go out either
  if (SendWork* work = qp->work_holding(request.header_template.bth.psn))
    work->error = IBV_WC_LOC_PROT_ERR;
  shared_.set_error(*qp);
}

bool Requester::next_packet_in_window(const QpContext& qp, const SendWork& work) const {
  return qp.in_window(psn_add(work.first_psn, work.sent), shared_.config().max_unacked_packets);
}

bool Requester::asks_for_ack(const QpContext& qp, std::uint32_t index, std::uint32_t count,
                             std::uint32_t psn) const {
  // The responder owes an ACK only for a packet with AckReq set (IBTA
  // 9.7.5.1.1), so the requester asks before it must stop: on a message's
  // last packet, every ack_request_packets-th of a long message (at least
  // twice per window, so a small window keeps packets in flight while the
  // ACK returns), on the packet that fills the window, and on the last packet
  // of a go-back-N resend. Without these a full window waits a transport
  // timeout for an ACK nobody owes.
  const std::uint32_t window = shared_.config().max_unacked_packets;
  const std::uint32_t every =
      std::min(shared_.config().ack_request_packets, std::max<std::uint32_t>(1, window / 2));
  const bool fills_window = !qp.in_window(psn_add(psn, 1), window);
  const bool ends_resend = psn_add(psn, 1) == qp.sent_psn_end;
  return index + 1 == count || (index + 1) % every == 0 || fills_window || ends_resend;
}

bool Requester::still_next(QpContext& qp, const SendWork& work) const {
  return qp.first_unsent() == &work && sim_now() >= qp.resume_at &&
         next_packet_in_window(qp, work);
}

bool Requester::has_work(QpContext& qp) const {
  if (qp.destroyed) return false;
  if (qp.state == IBV_QPS_ERR) {
    return !qp.outstanding.empty() || !qp.fetched.empty() ||
           (qp.send_fetched != qp.send_producer && !qp.fetch_pending) ||
           (qp.fetch_pending && dma_.done(qp.fetch_ticket));
  }
  if (!qp.requester_ready()) return false;
  if (qp.fetch_pending && dma_.done(qp.fetch_ticket)) return true;
  if (sim_now() < qp.resume_at) return false;
  if (shared_.held(qp) || shared_.paced(qp)) return false;
  if (const SendWork* work = qp.first_unsent()) return next_packet_in_window(qp, *work);
  if (!qp.fetched.empty()) {
    const SendWqe& next = qp.fetched.front();
    if (is_read_or_atomic(next.opcode) && qp.rd_atomic_outstanding >= qp.max_rd_atomic)
      return false;
    if (next.fence && qp.rd_atomic_outstanding > 0) return false;
    return qp.in_window(qp.next_psn, shared_.config().max_unacked_packets);
  }
  return qp.send_fetched != qp.send_producer && !qp.fetch_pending;
}

bool Requester::assigned(const Engine& engine, const QpContext& qp) const {
  if (qp.on_engine) return false;  // another engine's turn: the QP's chain is serial
  return shared_.config().engine_assignment == EngineAssignment::kDynamic ||
         qp.qpn % engines_.size() == engine.index;
}

bool Requester::idle(const QpContext& qp) const {
  // A QP waiting for its WQE fetch, an RNR hold, a PFC pause or its rate
  // limiter stays a candidate: those end without waking it. Anything else
  // that gives it work (a doorbell, an ACK, a state change, a rewind) wakes it.
  if (qp.destroyed) return true;
  return !qp.fetch_pending && sim_now() >= qp.resume_at && !shared_.held(qp) && !shared_.paced(qp);
}

QpContext* Requester::pick(Engine& engine) {
  RcContexts& contexts = shared_.contexts();
  // The engine's own candidates (QPs assigned statically), or everyone's.
  const bool own_lane = shared_.config().engine_assignment == EngineAssignment::kStatic;
  QpSet& candidates = contexts.send_candidates(own_lane ? engine.index : 0);
  engine.fetch_in_flight = false;
  // Round robin looks from the QP after the last one picked; strict
  // priority from the lowest QP number every time. QPs that are not
  // candidates have no work, so this finds what a look at every QP would.
  const auto after = [&candidates](std::uint32_t qpn) {
    const std::uint32_t next = candidates.next_from(std::uint64_t{qpn} + 1);
    return next != QpSet::kNone ? next : candidates.first();
  };
  std::uint32_t qpn = shared_.config().qp_scheduler == QpScheduler::kStrictPriority
                          ? candidates.first()
                          : after(engine.last_qpn);
  for (std::size_t n = candidates.size(); n > 0 && qpn != QpSet::kNone; --n) {
    QpContext* qp = contexts.qp(qpn);
    const std::uint32_t next = after(qpn);
    if (qp == nullptr) {
      candidates.erase(qpn);
    } else if (assigned(engine, *qp)) {
      if (has_work(*qp)) {
        engine.last_qpn = qpn;
        // The scheduler reads the context of the QP after this one ahead,
        // so a miss on it overlaps this turn (transport.context_prefetches).
        if (shared_.config().context_prefetches > 0) {
          const std::uint32_t ahead = contexts.next_send_candidate(qpn);
          if (ahead != qpn && ahead != QpSet::kNone) shared_.prefetch_qp(ahead);
        }
        return qp;
      }
      engine.fetch_in_flight = engine.fetch_in_flight || qp->fetch_pending;
      if (idle(*qp)) candidates.erase(qpn);
    }
    qpn = next == qpn ? QpSet::kNone : next;
  }
  return nullptr;
}

void Requester::run(Engine& engine) {
  for (;;) {
    ++shared_.stats().activations;
    dma_.pump();
    QpContext* qp = pick(engine);
    if (qp == nullptr) {
      // The earliest RNR hold to end, or paced QP to be free to send,
      // also wakes the requester.
      sc_core::sc_time wake = sc_core::SC_ZERO_TIME;
      QpSet& held = shared_.contexts().rnr_held();
      for (std::uint32_t qpn = held.first(); qpn != QpSet::kNone;
           qpn = held.next_from(std::uint64_t{qpn} + 1)) {
        const sc_core::sc_time& at = shared_.contexts().qp(qpn)->resume_at;
        if (at <= sim_now()) {
          held.erase(qpn);  // the hold is over (the QP is a candidate still)
        } else if (wake == sc_core::SC_ZERO_TIME || at < wake) {
          wake = at;
        }
      }
      if (const std::uint64_t paced = shared_.rate_limiters().next_wake_ps(to_ps(sim_now()))) {
        if (wake == sc_core::SC_ZERO_TIME || paced < to_ps(wake)) wake = picoseconds(paced);
      }
      if (wake != sc_core::SC_ZERO_TIME) hold_over_.notify(wake - sim_now());
      sc_core::wait(engine.fetch_in_flight ? work_or_fetch_wake_ : work_wake_);
      continue;
    }
    const sc_core::sc_time started = sim_now();
    qp->on_engine = true;
    turn(engine, *qp);
    qp->on_engine = false;
    engine.busy += sim_now() - started;
    shared_.stats().requester_busy += sim_now() - started;
    // Other engines passed the QP over during the turn: if it has more work,
    // one of them may take it now.
    if (engines_.size() > 1) shared_.contexts().send_work.notify(sc_core::SC_ZERO_TIME);
  }
}

void Requester::turn(Engine& engine, QpContext& qp) {
  if (qp.fetch_pending && dma_.done(qp.fetch_ticket)) {
    take_fetched(engine, qp);
  } else if (qp.state == IBV_QPS_ERR) {
    flush(engine, qp);
  } else if (SendWork* work = qp.first_unsent()) {
    send_packet(engine, qp, *work);
  } else if (!qp.fetched.empty()) {
    if (start_wqe(engine, qp)) send_packet(engine, qp, qp.outstanding.back());
  } else {
    fetch_wqes(engine, qp);
  }
}

void Requester::fetch_wqes(Engine& engine, QpContext& qp) {
  shared_.touch_qp(qp, dma_);
  // BlueFlame: the driver wrote the WQE with its doorbell; nothing to fetch.
  // Copies of WQEs the ring has been read past (fetched with others) go unused.
  while (!qp.blueflame.empty() &&
         static_cast<std::int32_t>(qp.blueflame.front().first_block - qp.send_fetched) < 0) {
    qp.blueflame.pop_front();
  }
  if (!qp.blueflame.empty() && qp.blueflame.front().first_block == qp.send_fetched) {
    const Bytes& bytes = qp.blueflame.front().bytes;
    std::uint32_t blocks = 0;
    const bool ok = decode_send_wqe(bytes.data(), bytes.size(), engine.decoded, &blocks, nullptr);
    qp.blueflame.pop_front();
    if (ok) {
      qp.send_fetched += blocks;
      engine.decoded.ring_end = qp.send_fetched;
      qp.fetched.push_back_slot() = engine.decoded;
      return;
    }
  }
  const std::uint32_t ready = qp.send_producer - qp.send_fetched;
  const std::uint32_t blocks =
      std::min({ready, shared_.config().wqe_fetch_blocks, qp.send_ring.contiguous(qp.send_fetched)});
  ++shared_.stats().wqe_fetches;
  qp.fetch_buffer = fetch_buffers_.take(std::size_t{blocks} * kSendBlockBytes);
  qp.fetch_blocks = blocks;
  qp.fetch_ticket = dma_.issue(
      DmaRequest::read(0, qp.send_ring.address(qp.send_fetched),
                       blocks * kSendBlockBytes, qp.fetch_buffer->data()),
      qp.fetch_buffer);
  qp.fetch_pending = true;
}

void Requester::take_fetched(Engine& engine, QpContext& qp) {
  qp.fetch_pending = false;
  const bool ok = dma_.wait(qp.fetch_ticket);
  MessageBreakdown::instance().mark(*this, "WQE fetched");
  std::uint32_t at = 0;
  while (ok && at < qp.fetch_blocks) {
    std::uint32_t blocks = 0;
    if (!decode_send_wqe(qp.fetch_buffer->data() + std::size_t{at} * kSendBlockBytes,
                         std::size_t{qp.fetch_blocks - at} * kSendBlockBytes, engine.decoded,
                         &blocks, nullptr)) {
      break;  // cut by the fetch limit: fetched again from its first block
    }
    at += blocks;
    engine.decoded.ring_end = qp.send_fetched + at;
    qp.fetched.push_back_slot() = engine.decoded;
  }
  qp.send_fetched += at;
  if (at == 0) {
    // A WQE that does not decode even with all its blocks is a local QP
    // operation error (a driver bug): the QP goes to ERR.
    const std::uint32_t ring_left = qp.send_producer - qp.send_fetched;
    if (!ok || ring_left <= qp.fetch_blocks) {
      ibv_wc wc;
      wc.status = IBV_WC_LOC_QP_OP_ERR;
      wc.qp_num = qp.qpn;
      qp.send_fetched = qp.send_producer;
      shared_.write_cqe(qp.send_cqn, wc, dma_, qp.send_fetched);
      shared_.set_error(qp);
    }
  }
  qp.fetch_buffer.reset();
}

bool Requester::start_wqe(Engine& engine, QpContext& qp) {
  SendWork& work = engine.starting;
  work.wqe = qp.fetched.front();
  qp.fetched.pop_front();
  const SendWqe& wqe = work.wqe;
  shared_.touch_qp(qp, dma_);
  // Charged with the WQE's first packet (send_packet): one wait for both.
  engine.owed += shared_.cycles(shared_.config().wqe_cycles);
  ++shared_.stats().wqes_started;
  work.sent = 0;
  work.responses = 0;
  work.error = IBV_WC_SUCCESS;
  work.local.status = TranslationStatus::kOk;
  work.local.segments.clear();
  work.local_cursor = SegmentCursor{};
  work.read_or_atomic = is_read_or_atomic(wqe.opcode);
  work.first_psn = qp.next_psn;
  const bool atomic = work.read_or_atomic && wqe.opcode != IBV_WR_RDMA_READ;
  work.packets = atomic ? 1 : packet::packet_count(wqe.length, qp.pmtu);
  qp.next_psn = psn_add(qp.next_psn, work.packets);
  // The local buffer: read for WRITE and SEND, written for READ and atomics.
  bool ok = true;
  // A lookup the translation unit answers from its caches at once is owed
  // (its hit latency), not waited for: the wait before the packet pays it.
  sc_core::sc_time lookup_owed = sc_core::SC_ZERO_TIME;
  if (!wqe.is_inline) {
    const std::uint32_t access =
        work.read_or_atomic ? static_cast<std::uint32_t>(IBV_ACCESS_LOCAL_WRITE) : 0u;
    std::uint64_t total = 0;
    for (const ibv_sge& sge : wqe.sges) {
      if (sge.length == 0) continue;
      // Each lookup starts when the one before has answered, as in hardware.
      if (lookup_owed != sc_core::SC_ZERO_TIME) {
        sc_core::wait(lookup_owed);
        lookup_owed = sc_core::SC_ZERO_TIME;
      }
      TranslationStatus status;
      if (translation_.translate_cached(sge.lkey, sge.addr, sge.length, access, qp.pd,
                                        work.local.segments, status)) {
        lookup_owed = translation_.hit_latency();
      } else {
        status = translation_.translate(sge.lkey, sge.addr, sge.length, access, qp.pd,
                                        work.local.segments);
      }
      if (status != TranslationStatus::kOk) {
        ok = false;
        break;
      }
      total += sge.length;
    }
    if (ok && total != wqe.length && !atomic) ok = false;
    if (atomic && total < 8) ok = false;
  }
  engine.owed += lookup_owed;
  if (!work.wqe.is_inline && work.wqe.length > 0)
    MessageBreakdown::instance().mark(*this, "local key translated", sim_now() + lookup_owed);
  if (!ok || qp.state != IBV_QPS_RTS) {
    // A local protection error: the WQE completes in error and the QP goes to ERR.
    ibv_wc wc;
    wc.wr_id = work.wqe.wr_id;
    wc.status = qp.state == IBV_QPS_ERR ? IBV_WC_WR_FLUSH_ERR : IBV_WC_LOC_PROT_ERR;
    wc.opcode = wc_opcode_of(work.wqe.opcode);
    wc.qp_num = qp.qpn;
    sc_core::wait(engine.owed);
    engine.owed = sc_core::SC_ZERO_TIME;
    shared_.write_cqe(qp.send_cqn, wc, dma_, work.wqe.ring_end);
    shared_.set_error(qp);
    return false;
  }
  qp.outstanding.push_back_slot() = work;  // the slot's segments keep their capacity
  return true;
}

void Requester::send_packet(Engine& engine, QpContext& qp, SendWork& work) {
  const SendWqe& wqe = work.wqe;
  // The packet is made once the cycles owed have passed and, for a payload
  // read from memory, once the DMA port has room for the read. A full port
  // frees long after the cycles as a rule (a payload read takes
  // microseconds), so then it waits for the room first and pays both with
  // one wake-up; the read is issued at the later of the two, as before.
  const sc_core::sc_time ready =
      sim_now() + engine.owed + shared_.cycles(shared_.config().packet_cycles);
  engine.owed = sc_core::SC_ZERO_TIME;
  const bool reads_payload = !wqe.is_inline && !work.read_or_atomic &&
                             std::uint64_t{work.sent} * qp.pmtu < wqe.length;
  if (reads_payload && !dma_.has_room()) {
    dma_.wait_for_room();
    if (sim_now() < ready) sc_core::wait(ready - sim_now());
  } else {
    sc_core::wait(ready - sim_now());  // a delta cycle when nothing is owed
  }
  if (qp.state != IBV_QPS_RTS) return;  // moved to ERR meanwhile: flushed next turn
  // Meanwhile a response may have completed the WQE, a NAK or timeout rewound
  // the QP (go-back-N: an earlier packet goes first) or an RNR NAK held it:
  // then the loop picks again (and this packet, if still next, pays its
  // cycles again: a rare race).
  if (!still_next(qp, work)) return;
  const std::uint32_t index = work.sent;
  const std::uint32_t count = work.request_packets();
  packet::TransmitRequest request;
  request.single_packet = true;
  request.source_qpn = qp.qpn;
  packet::RocePacket& h = request.header_template;
  h = shared_.header_template(qp);
  h.bth.opcode = request_opcode(wqe.opcode, index, count);
  // A READ sent again asks only for the responses still missing (IBTA
  // 9.7.5.1.4): its PSN and RETH start at the first of them.
  const std::uint32_t skipped = wqe.opcode == IBV_WR_RDMA_READ ? work.responses : 0;
  h.bth.psn = psn_add(work.first_psn, index + skipped);
  h.bth.solicited_event = wqe.solicited && index + 1 == count;
  h.bth.ack_req = asks_for_ack(qp, index, count, h.bth.psn);
  std::uint64_t offset = std::uint64_t{index} * qp.pmtu;
  std::uint32_t length = 0;
  switch (wqe.opcode) {
    case IBV_WR_RDMA_READ: {
      const std::uint64_t done = std::min<std::uint64_t>(std::uint64_t{skipped} * qp.pmtu, wqe.length);
      h.reth = packet::Reth{wqe.remote_addr + done, wqe.rkey,
                            static_cast<std::uint32_t>(wqe.length - done)};
      ++qp.rd_atomic_outstanding;
      break;
    }
    case IBV_WR_ATOMIC_CMP_AND_SWP:
    case IBV_WR_ATOMIC_FETCH_AND_ADD: {
      packet::AtomicEth a;
      a.virtual_address = wqe.remote_addr;
      a.rkey = wqe.rkey;
      a.compare = wqe.opcode == IBV_WR_ATOMIC_CMP_AND_SWP ? wqe.compare_add : 0;
      a.swap_add = wqe.opcode == IBV_WR_ATOMIC_CMP_AND_SWP ? wqe.swap : wqe.compare_add;
      h.atomic_eth = a;
      ++qp.rd_atomic_outstanding;
      break;
    }
    default:
      length = static_cast<std::uint32_t>(
          std::min<std::uint64_t>(qp.pmtu, wqe.length - std::min<std::uint64_t>(offset, wqe.length)));
      if (index == 0 && (wqe.opcode == IBV_WR_RDMA_WRITE ||
                         wqe.opcode == IBV_WR_RDMA_WRITE_WITH_IMM)) {
        h.reth = packet::Reth{wqe.remote_addr, wqe.rkey, wqe.length};
      }
      if (index + 1 == count && (wqe.opcode == IBV_WR_SEND_WITH_IMM ||
                                 wqe.opcode == IBV_WR_RDMA_WRITE_WITH_IMM)) {
        h.imm_dt = packet::ImmDt{wqe.imm_data};
      }
      break;
  }
  ++work.sent;
  ++shared_.stats().request_packets;
  // The PSNs this packet asks a response for end here (a READ's last
  // response); one sent before is a retransmission. The transport timer runs.
  const std::uint32_t answered_end = wqe.opcode == IBV_WR_RDMA_READ
                                         ? psn_add(work.first_psn, work.packets)
                                         : psn_add(h.bth.psn, 1);
  if (psn_diff(h.bth.psn, qp.sent_psn_end) < 0) {
    ++shared_.stats().retransmitted_packets;
    ++qp.retransmitted_packets;
  }
  if (psn_diff(answered_end, qp.sent_psn_end) > 0) qp.sent_psn_end = answered_end;
  shared_.ack_timer().start(qp);
  shared_.count_sent(qp, h, length);
  // The sender takes one packet at a time (queueing it may wait for room at
  // the DMA port): an engine finding another inside waits its turn.
  while (sender_in_use_) sc_core::wait(sender_free_);
  sender_in_use_ = true;
  if (wqe.is_inline) {
    if (length > 0) {
      std::shared_ptr<Bytes> payload = inline_payloads_.take(length);
      std::copy_n(wqe.inline_data.begin() + offset, length, payload->begin());
      request.payload = std::move(payload);
    }
    sender.send(std::move(request), nullptr, 0, 0);
  } else {
    sender.send(std::move(request), &work.local.segments, offset, length, {},
                &work.local_cursor);
  }
  sender_in_use_ = false;
  if (engines_.size() > 1) sender_free_.notify(sc_core::SC_ZERO_TIME);
}

void Requester::flush(Engine& engine, QpContext& qp) {
  // Every WQE of a QP in ERR completes with IBV_WC_WR_FLUSH_ERR, signaled or
  // not, in order: started ones first, then fetched ones; the rest are fetched.
  // A WQE that failed locally (its `error`) completes with that error instead.
  // The CQE is made before the pop: writing it may wait, and a slot popped
  // may be taken again meanwhile.
  auto flush_front = [&](auto pop_front, const SendWqe& wqe,
                         ibv_wc_status status = IBV_WC_WR_FLUSH_ERR) {
    ibv_wc wc;
    wc.wr_id = wqe.wr_id;
    wc.status = status;
    wc.opcode = wc_opcode_of(wqe.opcode);
    wc.qp_num = qp.qpn;
    const std::uint32_t ring_end = wqe.ring_end;
    pop_front();
    shared_.write_cqe(qp.send_cqn, wc, dma_, ring_end);
  };
  if (!qp.outstanding.empty()) {
    const SendWork& front = qp.outstanding.front();
    flush_front([&] { qp.pop_outstanding(); }, front.wqe,
                front.error != IBV_WC_SUCCESS ? front.error : IBV_WC_WR_FLUSH_ERR);
  } else if (!qp.fetched.empty()) {
    flush_front([&] { qp.fetched.pop_front(); }, qp.fetched.front());
  } else if (!qp.fetch_pending && qp.send_fetched != qp.send_producer) {
    fetch_wqes(engine, qp);
  }
  qp.rd_atomic_outstanding = 0;
}

}  // namespace rnicsim
