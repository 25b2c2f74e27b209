// What the RC units share: contexts, context caches, CQE writes, packet
// headers, and the helpers the units share.
#include <algorithm>
#include <stdexcept>

#include "common/activity.hpp"
#include "common/message_breakdown.hpp"
#include "common/time_units.hpp"
#include "formats/opcodes.hpp"
#include "nic/transport/transport_shared.hpp"

namespace rnicsim {

QpContext* RcContexts::qp(std::uint32_t qpn) {
  return qpn < by_qpn_.size() ? by_qpn_[qpn] : nullptr;
}

CqContext* RcContexts::cq(std::uint32_t cqn) {
  auto it = cqs_.find(cqn);
  return it == cqs_.end() ? nullptr : it->second.get();
}

QpContext& RcContexts::add_qp(std::uint32_t qpn) {
  auto& slot = qps_[qpn];
  slot = std::make_unique<QpContext>();
  slot->qpn = qpn;
  if (qpn >= by_qpn_.size()) by_qpn_.resize(std::size_t{qpn} + 1, nullptr);
  by_qpn_[qpn] = slot.get();
  return *slot;
}

void RcContexts::wake_all_senders() {
  for (const auto& [qpn, qp] : qps_) send_candidates_[lane_of(qpn)].insert(qpn);
  send_work.notify(sc_core::SC_ZERO_TIME);
}

std::uint32_t RcContexts::next_send_candidate(std::uint32_t qpn) const {
  std::uint32_t after = QpSet::kNone;
  for (const QpSet& lane : send_candidates_) {
    after = std::min(after, lane.next_from(std::uint64_t{qpn} + 1));
  }
  if (after != QpSet::kNone) return after;
  std::uint32_t first = QpSet::kNone;  // wrapping: only past the highest candidate
  for (const QpSet& lane : send_candidates_) first = std::min(first, lane.first());
  return first;
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
      rate_limiters_(config.dcqcn.rp, config.dcqcn.impl),
      qp_cache_(config.qp_cache, config.seed),
      cq_cache_(config.cq_cache, config.seed + 1) {}

std::optional<QpProgress> TransportShared::qp_progress(std::uint32_t qpn) {
  const QpContext* qp = contexts_.qp(qpn);
  if (qp == nullptr) return std::nullopt;
  return QpProgress{qp->acked_psn, qp->expected_psn, qp->retransmitted_packets};
}

void TransportShared::count_sent(const QpContext& qp, const packet::RocePacket& h,
                                 std::uint32_t payload) {
  if (!rate_limiters_.enabled()) return;
  // What the packet takes on the cable: its frame and FCS (at least the
  // minimum frame), preamble and inter-frame gap.
  constexpr std::uint64_t kFcs = 4, kMinFrame = 64, kPreambleAndGap = 20;
  const std::uint64_t frame = packet::frame_size(h, payload) + kFcs;
  rate_limiters_.sent(qp.qpn, std::max(frame, kMinFrame) + kPreambleAndGap, to_ps(sim_now()));
}

void TransportShared::touch_qp(const QpContext& qp, DmaClient& dma) {
  const auto prefetched = prefetches_.find(qp.qpn);
  if (prefetched == prefetches_.end()) {
    if (qp_cache_.lookup(qp.qpn)) {
      ++stats_.qp_cache_hits;
      return;
    }
    ++stats_.qp_cache_misses;
    const sc_core::sc_time start = sim_now();
    const std::shared_ptr<Bytes> context = context_buffers_.take(config_.qp_context_bytes);
    dma.read(qp.context_address, context->data(), config_.qp_context_bytes);
    qp_cache_.insert(qp.qpn, true);
    stats_.context_wait += sim_now() - start;
    qp_miss_latency_.add(sim_now() - start);
    return;
  }
  // Its context was read ahead (a miss when it was issued): the unit waits
  // only for what is left of that read. It takes the read, so a second unit
  // after the same context finds it cached.
  ++stats_.qp_cache_misses;
  const std::uint32_t ticket = prefetched->second;
  prefetches_.erase(prefetched);
  const sc_core::sc_time start = sim_now();
  prefetch_client_->wait(ticket);
  qp_cache_.insert(qp.qpn, true);
  stats_.context_wait += sim_now() - start;
  qp_miss_latency_.add(sim_now() - start);
}

void TransportShared::prefetch_qp(std::uint32_t qpn) {
  if (config_.context_prefetches == 0 || prefetch_client_ == nullptr) return;
  if (prefetches_.size() >= config_.context_prefetches || prefetches_.count(qpn) != 0) return;
  const QpContext* qp = contexts_.qp(qpn);
  if (qp == nullptr || qp->destroyed || qp_cache_.peek(qpn)) return;
  if (!prefetch_client_->has_room()) return;
  std::shared_ptr<Bytes> context = context_buffers_.take(config_.qp_context_bytes);
  std::uint8_t* data = context->data();
  prefetches_[qpn] = prefetch_client_->issue(
      DmaRequest::read(0, qp->context_address, config_.qp_context_bytes, data), std::move(context));
  ++stats_.context_prefetches;
}

void TransportShared::touch_cq(const CqContext& cq, DmaClient& dma) {
  if (cq_cache_.lookup(cq.cqn)) {
    ++stats_.cq_cache_hits;
    return;
  }
  ++stats_.cq_cache_misses;
  const sc_core::sc_time start = sim_now();
  const std::shared_ptr<Bytes> context = context_buffers_.take(config_.cq_context_bytes);
  dma.read(cq.context_address, context->data(), config_.cq_context_bytes);
  cq_cache_.insert(cq.cqn, true);
  cq_miss_latency_.add(sim_now() - start);
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
  // ECN-capable transport: the codepoint replaces the traffic class's two low bits.
  if (config_.ecn != 0) ip.tos = static_cast<std::uint8_t>((ip.tos & 0xFC) | config_.ecn);
  t.ip = ip;
  // The source port spreads QPs over ECMP paths, as RoCEv2 NICs do.
  t.udp.source_port = static_cast<std::uint16_t>(0xC000 | (qp.qpn & 0x3FFF));
  t.bth.dest_qp = qp.dest_qpn;
  return t;
}

void TransportShared::set_held_priorities(std::uint8_t held) {
  const bool released = (held_priorities_ & ~held) != 0;
  held_priorities_ = held;
  if (released) contexts_.wake_all_senders();
}

void TransportShared::set_error(QpContext& qp) {
  qp.state = IBV_QPS_ERR;
  AckTimer::stop(qp);
  contexts_.wake_sender(qp);
  contexts_.wake_receive_flush(qp);
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

const StatisticsTable<TransportStats>& transport_statistics() {
  static const StatisticsTable<TransportStats> table(
      "transport",
      {
          {"doorbells", "doorbells", &TransportStats::doorbells,
           "doorbell writes to the NIC's registers"},
          {"blueflame_writes", "writes", &TransportStats::blueflame_writes,
           "doorbells that carried their WQE (BlueFlame)"},
          {"commands", "commands", &TransportStats::commands,
           "driver commands (QP state changes, deregistrations) executed"},
          {"wqe_fetches", "DMA reads", &TransportStats::wqe_fetches,
           "send and receive WQEs read from host memory"},
          {"wqes_started", "WQEs", &TransportStats::wqes_started, "send WQEs the requester began"},
          {"request_packets", "packets", &TransportStats::request_packets,
           "request packets sent, first sends and resends"},
          {"response_packets", "packets", &TransportStats::response_packets,
           "ACKs, NAKs, READ responses and atomic ACKs sent"},
          {"acks_sent", "packets", &TransportStats::acks_sent, "ACKs sent"},
          {"naks_sent", "packets", &TransportStats::naks_sent,
           "sequence-error and other NAKs sent"},
          {"rnr_naks_sent", "packets", &TransportStats::rnr_naks_sent,
           "RNR NAKs sent (no receive WQE posted)"},
          {"duplicate_request", "packets", &TransportStats::duplicate_requests,
           "duplicate requests received (mlx5's name)"},
          {"out_of_sequence", "packets", &TransportStats::out_of_sequence,
           "requests received ahead of the expected PSN"},
          {"cqes", "CQEs", &TransportStats::cqes, "completion queue entries written"},
          {"qp_cache_misses", "misses", &TransportStats::qp_cache_misses,
           "QP context cache misses"},
          {"qp_cache_hits", "lookups", &TransportStats::qp_cache_hits,
           "QP context cache lookups that hit"},
          {"cq_cache_misses", "misses", &TransportStats::cq_cache_misses,
           "CQ context cache misses"},
          {"cq_cache_hits", "lookups", &TransportStats::cq_cache_hits,
           "CQ context cache lookups that hit"},
          {"context_prefetches", "DMA reads", &TransportStats::context_prefetches,
           "QP context reads issued ahead of the unit that needs them "
           "(transport.context_prefetches)"},
          {"requester_busy_ns", &TransportStats::requester_busy,
           "time the requester's engines spent in turns, summed over engines (occupancy)"},
          {"responder_busy_ns", &TransportStats::responder_busy,
           "time the responder spent on request packets, from its per-packet cycles to done"},
          {"completer_busy_ns", &TransportStats::completer_busy,
           "time the completer spent on response packets, from its per-packet cycles to done"},
          {"context_wait_ns", &TransportStats::context_wait,
           "time units waited for QP context reads (cache misses), part of their busy time"},
          {"dropped_no_qp", "packets", &TransportStats::dropped_no_qp,
           "packets for a QP that does not exist or is not ready, dropped"},
          {"dropped_wrong_transport", "packets", &TransportStats::dropped_wrong_transport,
           "UC or UD requests to an RC QP, dropped"},
          {"resp_remote_access_errors", "NAKs", &TransportStats::resp_remote_access_errors,
           "remote access error NAKs sent (mlx5's name)"},
          {"resp_local_length_error", "packets", &TransportStats::resp_local_length_error,
           "SENDs longer than their receive buffer (mlx5's name)"},
          {"key_rejections", "requests", &TransportStats::key_rejections,
           "requests whose key, PD, rights or bounds the translation refused"},
          {"packet_seq_err", "NAKs", &TransportStats::packet_seq_err,
           "sequence-error NAKs received (mlx5's name)"},
          {"local_ack_timeout_err", "timeouts", &TransportStats::local_ack_timeout_err,
           "transport timer expiries (mlx5's name)"},
          {"rnr_nak_retry_err", "NAKs", &TransportStats::rnr_nak_retry_err,
           "RNR NAKs received (mlx5's name)"},
          {"implied_nak_seq_err", "responses", &TransportStats::implied_nak_seq_err,
           "responses that skipped a READ's or atomic's (mlx5's name)"},
          {"retransmitted_packets", "packets", &TransportStats::retransmitted_packets,
           "request packets sent again"},
          {"retry_exceeded", "WQEs", &TransportStats::retry_exceeded,
           "WQEs ended with IBV_WC_RETRY_EXC_ERR"},
          {"ghost_responses", "packets", &TransportStats::ghost_responses,
           "responses to PSNs never sent: ignored"},
          {"stale_naks", "NAKs", &TransportStats::stale_naks,
           "NAKs for PSNs already acknowledged: ignored"},
      });
  return table;
}

}  // namespace rnicsim
