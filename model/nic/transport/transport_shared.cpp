// What the RC units share: contexts, context caches, CQE writes, packet
// headers; the ordered packet sender and the receive demultiplexer.
#include <algorithm>
#include <stdexcept>

#include "common/activity.hpp"
#include "common/message_breakdown.hpp"
#include "common/time_units.hpp"
#include "formats/opcodes.hpp"
#include "nic/transport/rc_units.hpp"

namespace rnicsim {

std::uint64_t RingLayout::address(std::uint64_t index) const {
  const std::uint64_t byte = (index % entries) * entry_bytes;
  return pages.at(byte / page_bytes) + byte % page_bytes;
}

std::uint32_t RingLayout::contiguous(std::uint64_t index) const {
  const std::uint64_t slot = index % entries;
  const std::uint64_t byte = slot * entry_bytes;
  const std::uint64_t in_page = (page_bytes - byte % page_bytes) / entry_bytes;
  return static_cast<std::uint32_t>(std::min<std::uint64_t>(in_page, entries - slot));
}

QpContext* RcContexts::qp(std::uint32_t qpn) {
  auto it = qps_.find(qpn);
  return it == qps_.end() ? nullptr : it->second.get();
}

CqContext* RcContexts::cq(std::uint32_t cqn) {
  auto it = cqs_.find(cqn);
  return it == cqs_.end() ? nullptr : it->second.get();
}

QpContext& RcContexts::add_qp(std::uint32_t qpn) {
  auto& slot = qps_[qpn];
  slot = std::make_unique<QpContext>();
  slot->qpn = qpn;
  return *slot;
}

CqContext& RcContexts::add_cq(std::uint32_t cqn) {
  auto& slot = cqs_[cqn];
  slot = std::make_unique<CqContext>();
  slot->cqn = cqn;
  return *slot;
}

TransportShared::TransportShared(const TransportConfig& config, const NicAddress& address)
    : config_(config),
      address_(address),
      clock_(config.clock_mhz),
      ack_timer_(config.ack_timeout_backoff),
      qp_cache_(config.qp_cache, config.seed),
      cq_cache_(config.cq_cache, config.seed + 1) {}

void TransportShared::touch_qp(const QpContext& qp, DmaClient& dma) {
  if (qp_cache_.lookup(qp.qpn)) return;
  ++stats_.qp_cache_misses;
  const std::shared_ptr<Bytes> context = context_buffers_.take(config_.qp_context_bytes);
  dma.read(qp.context_address, context->data(), config_.qp_context_bytes);
  qp_cache_.insert(qp.qpn, true);
}

void TransportShared::touch_cq(const CqContext& cq, DmaClient& dma) {
  if (cq_cache_.lookup(cq.cqn)) return;
  ++stats_.cq_cache_misses;
  const std::shared_ptr<Bytes> context = context_buffers_.take(config_.cq_context_bytes);
  dma.read(cq.context_address, context->data(), config_.cq_context_bytes);
  cq_cache_.insert(cq.cqn, true);
}

void TransportShared::write_cqe(std::uint32_t cqn, const ibv_wc& wc, DmaClient& dma,
                                std::uint32_t wqe_counter) {
  CqContext* cq = contexts_.cq(cqn);
  if (cq == nullptr) throw std::logic_error("a completion for CQ " + std::to_string(cqn) +
                                            ", which the NIC does not hold");
  const std::uint64_t index = cq->producer++;
  ++stats_.cqes;
  touch_cq(*cq, dma);
  const std::array<std::uint8_t, kCqeBytes> cqe =
      encode_cqe(Cqe{wc, cqe_owner_for(index, cq->ring.entries), wqe_counter});
  std::shared_ptr<Bytes> bytes = cqe_buffers_.take(kCqeBytes);
  std::copy(cqe.begin(), cqe.end(), bytes->begin());
  dma.write(cq->ring.address(index), std::move(bytes));
}

packet::RocePacket TransportShared::header_template(const QpContext& qp) const {
  packet::RocePacket t;
  t.ethernet.destination = qp.ah.dmac;
  t.ethernet.source = address_.mac;
  packet::Ipv4Header ip;
  ip.source = address_.ipv4;
  ip.destination = static_cast<std::uint32_t>(qp.ah.dgid[12]) << 24 |
                   static_cast<std::uint32_t>(qp.ah.dgid[13]) << 16 |
                   static_cast<std::uint32_t>(qp.ah.dgid[14]) << 8 | qp.ah.dgid[15];
  ip.ttl = qp.ah.hop_limit;
  ip.tos = qp.ah.traffic_class;
  t.ip = ip;
  // The source port spreads QPs over ECMP paths, as RoCEv2 NICs do.
  t.udp.source_port = static_cast<std::uint16_t>(0xC000 | (qp.qpn & 0x3FFF));
  t.bth.dest_qp = qp.dest_qpn;
  return t;
}

void TransportShared::set_error(QpContext& qp) {
  qp.state = IBV_QPS_ERR;
  AckTimer::stop(qp);
  contexts_.send_work.notify(sc_core::SC_ZERO_TIME);
  contexts_.recv_work.notify(sc_core::SC_ZERO_TIME);
}

OrderedSender::OrderedSender(const sc_core::sc_module_name& name, DmaClient& dma,
                             const sc_core::sc_time& latency)
    : sc_core::sc_module(name), out("out"), dma_(dma), latency_(latency) {
  SC_METHOD(run);
}

void OrderedSender::send(packet::TransmitRequest request,
                         const std::vector<PhysicalSegment>* payload_from, std::uint64_t offset,
                         std::uint32_t length, const std::vector<std::uint32_t>& after,
                         SegmentCursor* cursor) {
  const bool inner = sending_;
  std::vector<std::uint32_t>& staged = inner ? inner_tickets_ : staged_tickets_;
  if (!inner) {
    sending_ = true;
    discarded_while_sending_.clear();
  }
  staged.assign(after.begin(), after.end());
  const std::size_t first_read = staged.size();
  if (payload_from != nullptr && length > 0) {
    // Issuing may wait for room at the port; an inner send reads no payload.
    std::shared_ptr<Bytes> buffer = payloads_.take(length);
    requests_for(reads_, DmaOp::kRead, *payload_from, offset, length, buffer->data(), cursor);
    for (const DmaRequest& r : reads_) staged.push_back(dma_.issue(r, buffer));
    request.payload = std::move(buffer);
  }
  const bool was_idle = pending_.empty();
  Pending& pending = pending_.push_back_slot();
  pending.discard = false;
  if (!inner) {
    sending_ = false;
    pending.discard = std::find(discarded_while_sending_.begin(), discarded_while_sending_.end(),
                                request.source_qpn) != discarded_while_sending_.end();
  }
  pending.request = std::move(request);
  pending.tickets.assign(staged.begin(), staged.end());
  pending.first_read = first_read;
  // A busy sender gets to this packet by itself. An idle one hears of each
  // completion at the port (completion_arrived), so it needs waking now only
  // when nothing is left to complete (every completion there is taken first,
  // so a ticket not done now has its completion still to come).
  if (!was_idle) return;
  dma_.pump();
  for (const std::uint32_t ticket : pending.tickets)
    if (!dma_.done(ticket)) return;
  queued_.notify(sc_core::SC_ZERO_TIME);
}

void OrderedSender::discard_queued_from(std::uint32_t qpn) {
  for (Pending& pending : pending_)
    if (pending.request.source_qpn == qpn) pending.discard = true;
  if (sending_) discarded_while_sending_.push_back(qpn);
}

packet::TransmitRequest OrderedSender::take_head() {
  packet::TransmitRequest request = std::move(pending_.front().request);
  pending_.pop_front();
  head_tickets_done_ = 0;
  head_read_failed_ = false;
  return request;
}

void OrderedSender::end_of_elaboration() {
  // Here, not in the constructor: the owning unit's DmaClient is constructed
  // after its sender.
  dma_.set_completion_listener(this);
}

void OrderedSender::run() {
  ++activity().method_activations;
  blocked_ = advance();
  if (blocked_ == Blocked::kSpace) {
    sc_core::next_trigger(out->space_event());
  } else {
    sc_core::next_trigger(queued_);  // completions come through completion_arrived()
  }
}

void OrderedSender::completion_arrived() {
  if (blocked_ == Blocked::kSpace) return;  // the builder's room is what it waits for
  blocked_ = advance();
  // The method waits on queued_: have it run now and wait for the room instead.
  if (blocked_ == Blocked::kSpace) queued_.notify();
}

OrderedSender::Blocked OrderedSender::advance() {
  while (!pending_.empty()) {
    Pending& head = pending_.front();
    // The head's tickets are released in order, each once done, as a thread
    // waiting for them one by one would: ticket numbers are reused in that order.
    if (head_tickets_done_ < head.tickets.size()) dma_.pump();
    while (head_tickets_done_ < head.tickets.size() &&
           dma_.done(head.tickets[head_tickets_done_])) {
      const bool ok = dma_.release(head.tickets[head_tickets_done_]);
      if (!ok && head_tickets_done_ >= head.first_read) head_read_failed_ = true;
      ++head_tickets_done_;
    }
    if (head_tickets_done_ < head.tickets.size()) return Blocked::kTickets;
    if (head.discard) {
      take_head();
      continue;
    }
    if (head_read_failed_) {
      // Never stale bytes on the wire: the owner decides what happens instead.
      const packet::TransmitRequest failed = take_head();
      if (read_failed_) read_failed_(failed);
      continue;
    }
    if (!out->can_push()) return Blocked::kSpace;
    const bool acknowledge = is_acknowledge(head.request.header_template.bth.opcode);
    if (!head.tickets.empty() && head.request.payload)
      MessageBreakdown::instance().mark(*this, "payload read");
    out->nb_push(take_head(), latency_);
    if (!acknowledge) MessageBreakdown::instance().mark(*this, "to the builder");
  }
  return Blocked::kNothing;
}

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

ibv_wc_opcode wc_opcode_of(ibv_wr_opcode opcode) {
  switch (opcode) {
    case IBV_WR_RDMA_WRITE:
    case IBV_WR_RDMA_WRITE_WITH_IMM: return IBV_WC_RDMA_WRITE;
    case IBV_WR_SEND:
    case IBV_WR_SEND_WITH_IMM: return IBV_WC_SEND;
    case IBV_WR_RDMA_READ: return IBV_WC_RDMA_READ;
    case IBV_WR_ATOMIC_CMP_AND_SWP: return IBV_WC_COMP_SWAP;
    case IBV_WR_ATOMIC_FETCH_AND_ADD: return IBV_WC_FETCH_ADD;
  }
  return IBV_WC_SEND;
}

double rnr_timer_us(std::uint8_t code) {
  // REFERENCE section 5 (IB_RNR_TIMER_*), in microseconds.
  static constexpr double kTable[32] = {
      655360, 10,    20,    30,    40,    60,    80,     120,    160,    240,    320,
      480,    640,   960,   1280,  1920,  2560,  3840,   5120,   7680,   10240,  15360,
      20480,  30720, 40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520};
  return kTable[code & 0x1F];
}

}  // namespace rnicsim
