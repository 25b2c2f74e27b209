#include "nic/transport/transport_config.hpp"

#include <utility>

#include "nic/translation/translation_config.hpp"

namespace rnicsim {

void declare_transport_keys(config::Schema& schema) {
  using config::integer_key;
  schema.add(config::number_key("transport.clock_mhz", 500, "MHz",
                                "clock of the transport units (requester, responder, completer, "
                                "command firmware)")
                 .at_least(1)
                 .at_most(10000));
  schema.add(config::string_key("transport.qp_scheduler", "round_robin",
                                "how the requester picks the next QP with work: round_robin (one "
                                "packet per QP in turn) or strict_priority (the lowest QP number "
                                "with work always first)")
                 .one_of({"round_robin", "strict_priority"}));
  schema.add(integer_key("transport.requester_engines", 1, "engines",
                         "WQE-processing engines in the requester working at once, each on one "
                         "QP's turn (a QP's WQEs and packets stay serial: one engine at a time)")
                 .at_least(1)
                 .at_most(256));
  schema.add(config::string_key("transport.engine_assignment", "static",
                                "which engine takes a QP: static (QP n on engine n mod "
                                "requester_engines) or dynamic (any free engine)")
                 .one_of({"static", "dynamic"}));
  schema.add(
      integer_key("transport.context_prefetches", 0, "reads",
                  "QP context reads issued ahead of the unit that needs them, at most this "
                  "many in flight: by the receive pipeline for an arriving packet and by the "
                  "requester's scheduler for its next QP; 0: each miss waits in its unit")
          .at_most(256));
  schema.add(config::string_key("transport.ack_timeout_backoff", "fixed",
                                "the requester's ACK timer over timeouts in a row: fixed (4.096 us "
                                "x 2^timeout, IBTA 9.7.6.1.3) or exponential (doubled at each "
                                "timeout until progress, as ConnectX-5 is reported to retry)")
                 .one_of({"fixed", "exponential"}));
  schema.add(integer_key("transport.wqe_cycles", 8, "cycles",
                         "requester: decode one send WQE and start its message (occupancy)")
                 .at_most(1 << 20));
  schema.add(integer_key("transport.packet_cycles", 4, "cycles",
                         "requester: make one request packet's descriptor (occupancy)")
                 .at_most(1 << 20));
  schema.add(integer_key("transport.responder_cycles", 4, "cycles",
                         "responder: check and place one request packet (occupancy)")
                 .at_most(1 << 20));
  schema.add(integer_key("transport.completer_cycles", 4, "cycles",
                         "completer: handle one response packet, ACK or READ response (occupancy)")
                 .at_most(1 << 20));
  schema.add(integer_key("transport.transmit_latency_cycles", 32, "cycles",
                         "requester pipeline latency from a packet's descriptor to the packet "
                         "builder (pipelined: it adds latency, not occupancy)")
                 .at_most(1 << 20));
  schema.add(integer_key("transport.receive_latency_cycles", 16, "cycles",
                         "pipeline latency from the parser to the responder or completer "
                         "(QP lookup, context load; pipelined)")
                 .at_most(1 << 20));
  schema.add(integer_key("transport.command_cycles", 500, "cycles",
                         "firmware: execute one driver command (create, modify, destroy)")
                 .at_most(1 << 24));
  schema.add(integer_key("transport.wqe_fetch_blocks", 8, "blocks",
                         "64 B send-queue blocks one WQE fetch reads at most")
                 .at_least(1)
                 .at_most(64));
  schema.add(integer_key("transport.recv_prefetch", 4, "WQEs",
                         "receive WQEs the responder holds fetched ahead of the SENDs that use "
                         "them; it refills as SENDs take them")
                 .at_least(1)
                 .at_most(64));
  schema.add(integer_key("transport.max_unacked_packets", 1024, "packets",
                         "request packets a QP sends beyond its last acknowledged one")
                 .at_least(1)
                 .at_most(1 << 22));
  schema.add(integer_key("transport.ack_coalesce_messages", 1, "messages",
                         "the responder acknowledges after this many messages that asked for an "
                         "ACK, or at once when no request packet is waiting")
                 .at_least(1)
                 .at_most(1 << 16));
  schema.add(integer_key("transport.ack_request_packets", 64, "packets",
                         "the requester sets AckReq on every this many packets of a long message "
                         "(and on each message's last), so its window moves mid-message")
                 .at_least(1)
                 .at_most(1 << 22));
  schema.add(integer_key("transport.payload_reads", 32, "requests",
                         "requester: payload DMA reads in flight")
                 .at_least(1)
                 .at_most(4096));
  schema.add(integer_key("transport.responder_dma", 64, "requests",
                         "responder: DMA writes and READ-response reads in flight")
                 .at_least(1)
                 .at_most(4096));
  schema.add(integer_key("transport.completer_dma", 32, "requests",
                         "completer: DMA writes (READ data, CQEs) in flight")
                 .at_least(1)
                 .at_most(4096));
  schema.add(integer_key("transport.qp_cache_entries", 1024, "contexts", "QP context cache size")
                 .at_least(1)
                 .at_most(1 << 20));
  schema.add(integer_key("transport.qp_cache_ways", 8, "ways", "QP context cache associativity")
                 .at_least(1)
                 .at_most(1 << 20));
  schema.add(integer_key("transport.cq_cache_entries", 256, "contexts", "CQ context cache size")
                 .at_least(1)
                 .at_most(1 << 20));
  schema.add(integer_key("transport.cq_cache_ways", 8, "ways", "CQ context cache associativity")
                 .at_least(1)
                 .at_most(1 << 20));
  schema.add(integer_key("transport.qp_context_bytes", 256, "bytes",
                         "a QP context in host memory, read by DMA on a cache miss")
                 .at_least(8)
                 .at_most(4096));
  schema.add(integer_key("transport.cq_context_bytes", 64, "bytes",
                         "a CQ context in host memory, read by DMA on a cache miss")
                 .at_least(8)
                 .at_most(4096));
  for (const auto& [ways, entries] :
       {std::pair{"transport.qp_cache_ways", "transport.qp_cache_entries"},
        std::pair{"transport.cq_cache_ways", "transport.cq_cache_entries"}}) {
    schema.add_check({ways, entries}, [ways = ways, entries = entries](const config::Json& doc) {
      return ways_violation(doc, ways, entries);
    });
  }
}

TransportConfig transport_config(const config::Section& transport) {
  const auto integer = [&transport](const char* key) {
    return static_cast<std::uint32_t>(transport.integer(key));
  };
  TransportConfig c;
  c.clock_mhz = transport.number("clock_mhz");
  c.qp_scheduler = transport.text("qp_scheduler") == "strict_priority"
                       ? QpScheduler::kStrictPriority
                       : QpScheduler::kRoundRobin;
  c.requester_engines = integer("requester_engines");
  c.engine_assignment = transport.text("engine_assignment") == "dynamic"
                            ? EngineAssignment::kDynamic
                            : EngineAssignment::kStatic;
  c.context_prefetches = integer("context_prefetches");
  c.ack_timeout_backoff = transport.text("ack_timeout_backoff") == "exponential"
                              ? AckTimeoutBackoff::kExponential
                              : AckTimeoutBackoff::kFixed;
  c.wqe_cycles = integer("wqe_cycles");
  c.packet_cycles = integer("packet_cycles");
  c.responder_cycles = integer("responder_cycles");
  c.completer_cycles = integer("completer_cycles");
  c.command_cycles = integer("command_cycles");
  c.transmit_latency_cycles = integer("transmit_latency_cycles");
  c.receive_latency_cycles = integer("receive_latency_cycles");
  c.wqe_fetch_blocks = integer("wqe_fetch_blocks");
  c.recv_prefetch = integer("recv_prefetch");
  c.max_unacked_packets = integer("max_unacked_packets");
  c.ack_coalesce_messages = integer("ack_coalesce_messages");
  c.ack_request_packets = integer("ack_request_packets");
  c.payload_reads = integer("payload_reads");
  c.responder_dma = integer("responder_dma");
  c.completer_dma = integer("completer_dma");
  c.qp_cache = {integer("qp_cache_entries"), integer("qp_cache_ways"), Replacement::kLru};
  c.cq_cache = {integer("cq_cache_entries"), integer("cq_cache_ways"), Replacement::kLru};
  c.qp_context_bytes = integer("qp_context_bytes");
  c.cq_context_bytes = integer("cq_context_bytes");
  c.seed = transport.stream_seed();
  return c;
}

}  // namespace rnicsim
