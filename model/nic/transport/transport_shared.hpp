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
#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <systemc>

#include "common/byte_pool.hpp"
#include "common/clock_domain.hpp"
#include "common/latency_histogram.hpp"
#include "common/statistics.hpp"
#include "interface/nic_address.hpp"
#include "nic/congestion/rate_limiters.hpp"
#include "nic/packet/packet_blocks.hpp"
#include "nic/protection/request_checks.hpp"
#include "nic/translation/translation_cache.hpp"
#include "nic/transport/ack_timer.hpp"
#include "nic/transport/dma_client.hpp"
#include "nic/transport/rc_contexts.hpp"
#include "nic/transport/transport_config.hpp"

namespace rnicsim {

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
  std::uint64_t qp_cache_hits = 0;
  std::uint64_t qp_cache_misses = 0;
  std::uint64_t cq_cache_hits = 0;
  std::uint64_t cq_cache_misses = 0;
  std::uint64_t context_prefetches = 0;  // QP context reads issued ahead of their unit
  std::uint64_t dropped_no_qp = 0;  // packets for a QP that does not exist or is not ready
  std::uint64_t dropped_wrong_transport = 0;    // UC or UD requests to an RC QP
  std::uint64_t resp_remote_access_errors = 0;  // remote access NAKs the responder sent
  std::uint64_t resp_local_length_error = 0;    // SENDs longer than their receive buffer
  std::uint64_t key_rejections = 0;             // requests whose key, PD, rights or bounds failed
  // Request packets per verdict of the responder's checks (request_checks.hpp):
  // kAccepted counts those that passed the header check.
  std::array<std::uint64_t, kRequestCheckCount> request_checks{};
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
  // Occupancy: the time each unit spent on its items (the requester's
  // engines summed), and the part of it units waited for QP contexts.
  sc_core::sc_time requester_busy;
  sc_core::sc_time responder_busy;
  sc_core::sc_time completer_busy;
  sc_core::sc_time context_wait;
};

// TransportStats's names, units and meanings (common/statistics.hpp).
const StatisticsTable<TransportStats>& transport_statistics();

// How far one QP has got, as a meter outside the NIC reads it (a fabric
// experiment's per-flow throughput over time).
struct QpProgress {
  std::uint32_t acked_psn = 0;     // requester: the oldest PSN not yet acknowledged
  std::uint32_t expected_psn = 0;  // responder: the next request PSN it will accept
  std::uint64_t retransmitted_packets = 0;
};

// What the units share: contexts, caches, clock, counters.
class TransportShared {
 public:
  TransportShared(const TransportConfig& config, const NicAddress& address);

  const TransportConfig& config() const { return config_; }
  const NicAddress& address() const { return address_; }
  RcContexts& contexts() { return contexts_; }
  TransportStats& stats() { return stats_; }
  const TransportStats& stats() const { return stats_; }
  // QP `qpn`'s progress; nullopt when the NIC has no such QP.
  std::optional<QpProgress> qp_progress(std::uint32_t qpn);
  AckTimer& ack_timer() { return ack_timer_; }
  // DCQCN's reaction point: the QPs' rate limiters (nic/congestion/).
  RateLimiters& rate_limiters() { return rate_limiters_; }
  const RateLimiters& rate_limiters() const { return rate_limiters_; }
  // Whether QP `qp`'s rate limiter holds its next packet back now.
  bool paced(const QpContext& qp) const {
    return rate_limiters_.next_send_ps(qp.qpn) > sc_core::sc_time_stamp().value();
  }
  // QP `qp` sent a packet with headers `h` and `payload` bytes: its rate
  // limiter counts it and paces the next.
  void count_sent(const QpContext& qp, const packet::RocePacket& h, std::uint32_t payload);
  sc_core::sc_time cycles(std::uint64_t n) const { return clock_.cycles(n); }

  // Charges a QP (CQ) context fetch by DMA when the cache misses it; a
  // context read issued ahead (prefetch_qp) is waited for instead.
  void touch_qp(const QpContext& qp, DmaClient& dma);
  void touch_cq(const CqContext& cq, DmaClient& dma);
  // Issues the read of QP `qpn`'s context ahead of the unit that will need
  // it, when the cache misses it, none is in flight for it, fewer than
  // `context_prefetches` are, and the prefetch port has room. Never waits
  // (the receive pipeline calls it from a method).
  void prefetch_qp(std::uint32_t qpn);
  // The DMA port prefetches use (their own, with context_prefetches in flight).
  void attach_prefetch_port(DmaPort& port) { prefetch_client_ = std::make_unique<DmaClient>(port); }
  // How long context misses took, from the lookup to the context in hand.
  const LatencyHistogram& qp_miss_latency() const { return qp_miss_latency_; }
  const LatencyHistogram& cq_miss_latency() const { return cq_miss_latency_; }
  // Writes a CQE for `wc` into CQ `cqn` by DMA through `dma` (after every
  // earlier write of that client: posted writes stay in order).
  void write_cqe(std::uint32_t cqn, const ibv_wc& wc, DmaClient& dma,
                 std::uint32_t wqe_counter = 0);
  // The packet headers every packet to the QP's peer shares.
  packet::RocePacket header_template(const QpContext& qp) const;

  // Moves the QP to ERR: the requester and responder then flush its WQEs.
  void set_error(QpContext& qp);

  // Priorities whose frames the NIC's port holds back (bit p; a PFC pause
  // on a switched topology): the requester starts no packet of a QP of such
  // a priority, so the transmit path stays free for the others. Clearing a
  // bit wakes the requester.
  void set_held_priorities(std::uint8_t held);
  bool held(const QpContext& qp) const {
    return held_priorities_ != 0 &&
           ((held_priorities_ >> config_.dscp_classes[qp.ah.traffic_class >> 2]) & 1u) != 0;
  }

 private:
  TransportConfig config_;
  NicAddress address_;
  ClockDomain clock_;
  RcContexts contexts_;
  TransportStats stats_;
  std::uint8_t held_priorities_ = 0;
  AckTimer ack_timer_;
  RateLimiters rate_limiters_;
  TranslationCache<bool> qp_cache_;
  TranslationCache<bool> cq_cache_;
  BytePool cqe_buffers_;      // a CQE's bytes live until its posted write completes
  BytePool context_buffers_;  // a context read's destination, one per read in flight
  LatencyHistogram qp_miss_latency_;
  LatencyHistogram cq_miss_latency_;
  // QP context reads issued ahead, by QP number: the prefetch client's ticket.
  std::unique_ptr<DmaClient> prefetch_client_;
  std::map<std::uint32_t, std::uint32_t> prefetches_;
};

// Work completion opcode of a send WQE's opcode.
ibv_wc_opcode wc_opcode_of(ibv_wr_opcode opcode);
// The RNR NAK timer code's delay (REFERENCE section 5), in microseconds.
double rnr_timer_us(std::uint8_t code);

}  // namespace rnicsim
