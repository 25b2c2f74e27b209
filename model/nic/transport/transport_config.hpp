#pragma once
// The RC transport's config keys (node section "transport"): its clock, the
// cycles each unit charges, how much it keeps in flight, ACK coalescing and
// the QP and CQ context caches. configs/README.md lists them with units.
#include <array>
#include <cstdint>
#include <systemc>

#include "config/config.hpp"
#include "config/run_config.hpp"
#include "nic/congestion/congestion_config.hpp"
#include "nic/translation/translation_cache.hpp"

namespace rnicsim {

// How the requester picks the next QP with work: round robin from the one
// after the last picked, or strictly the lowest QP number with work.
enum class QpScheduler : std::uint8_t { kRoundRobin, kStrictPriority };

// How the requester's transport timer grows over timeouts in a row: fixed
// at 4.096 us x 2^timeout (IBTA 9.7.6.1.3), or doubling at each timeout
// until a response makes progress, as ConnectX-5 is reported to retry.
// Which requester engine takes a QP: QP n always engine n mod engines
// (static, as a hash of the QP number would), or whichever engine is free
// (dynamic; a QP is still on one engine at a time).
enum class EngineAssignment : std::uint8_t { kStatic, kDynamic };

enum class AckTimeoutBackoff : std::uint8_t { kFixed, kExponential };

struct TransportConfig {
  double clock_mhz = 0;
  // The ECN codepoint of the RoCEv2 frames the NIC sends (0: Not-ECT, 1:
  // ECT(1), 2: ECT(0)); set by the testbed from qos.ecn on a switched topology.
  std::uint8_t ecn = 0;
  // The priority of a QP's frames by the DSCP of its traffic class (the
  // qos.dscp_classes table); set by the testbed on a switched topology.
  std::array<std::uint8_t, 64> dscp_classes{};
  // DCQCN (nic/congestion/); set by the testbed on a switched topology.
  DcqcnConfig dcqcn;
  QpScheduler qp_scheduler = QpScheduler::kRoundRobin;
  std::uint32_t requester_engines = 1;  // WQE-processing engines working at once
  EngineAssignment engine_assignment = EngineAssignment::kStatic;
  // QP context reads issued ahead of the unit that needs them (the receive
  // pipeline for an arriving packet, the scheduler for its next candidate),
  // at most this many in flight; 0: every miss is read by the unit, waiting.
  std::uint32_t context_prefetches = 0;
  AckTimeoutBackoff ack_timeout_backoff = AckTimeoutBackoff::kFixed;
  std::uint32_t wqe_cycles = 0;         // requester: decode and start one WQE
  std::uint32_t packet_cycles = 0;      // requester: one request packet
  std::uint32_t responder_cycles = 0;   // responder: one request packet
  std::uint32_t completer_cycles = 0;   // completer: one response packet
  std::uint32_t transmit_latency_cycles = 0;  // requester's pipeline: descriptor to builder
  std::uint32_t receive_latency_cycles = 0;   // parser to responder or completer
  std::uint32_t command_cycles = 0;     // firmware: one command
  std::uint32_t wqe_fetch_blocks = 0;   // 64 B send blocks one WQE fetch reads at most
  std::uint32_t recv_prefetch = 0;      // receive WQEs the responder keeps fetched ahead
  std::uint32_t max_unacked_packets = 0;  // per QP
  std::uint32_t ack_coalesce_messages = 0;
  std::uint32_t ack_request_packets = 0;  // the requester asks for an ACK at least this often
  std::uint32_t payload_reads = 0;      // requester payload reads in flight
  std::uint32_t responder_dma = 0;      // responder DMA requests in flight (writes, reads)
  std::uint32_t completer_dma = 0;      // completer DMA writes in flight
  CacheGeometry qp_cache;
  CacheGeometry cq_cache;
  std::uint32_t qp_context_bytes = 0;   // read by DMA on a QP context miss
  std::uint32_t cq_context_bytes = 0;
  std::uint64_t seed = 0;
};

void declare_transport_keys(config::Schema& schema);
TransportConfig transport_config(const config::Section& transport);

}  // namespace rnicsim
