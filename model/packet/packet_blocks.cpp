#include "packet/packet_blocks.hpp"

#include <memory>
#include <numeric>

#include "common/clock_domain.hpp"

namespace rnicsim::packet {

PacketBuilder::PacketBuilder(const sc_core::sc_module_name& name, const StageTiming& timing)
    : sc_core::sc_module(name), in("in"), out("out"), timing_(timing) {
  SC_THREAD(run);
}

void PacketBuilder::run() {
  for (;;) {
    const TransmitRequest request = in->pop();
    const std::size_t length = request.payload ? request.payload->size() : 0;
    const std::uint8_t* payload = request.payload ? request.payload->data() : nullptr;
    ++stats_.messages;
    for (const SegmentedPacket& segment :
         segment_message(request.kind, request.transport, request.pmtu, request.first_psn, length)) {
      RocePacket headers = request.header_template;
      headers.bth.opcode = segment.opcode;
      headers.bth.psn = segment.psn;
      headers.bth.ack_req = segment.ack_req;
      headers.reth.reset();
      headers.imm_dt.reset();
      headers.ieth.reset();
      headers.aeth.reset();
      headers.deth.reset();
      if (segment.has_reth) {
        headers.reth = request.reth;
        headers.reth->dma_length = static_cast<std::uint32_t>(length);
      }
      if (segment.has_imm_dt) headers.imm_dt = request.imm_dt;
      if (segment.has_ieth) headers.ieth = request.ieth;
      if (segment.has_aeth) headers.aeth = request.aeth;
      if (segment.has_deth) headers.deth = request.deth;
      auto frame = std::make_shared<const Bytes>(build_frame(
          headers, payload + segment.payload_offset, segment.payload_length));

      const sc_core::sc_time start = sc_core::sc_time_stamp();
      const std::uint64_t bits = 8ULL * frame->size();
      sc_core::wait(timing_.service_time(bits));
      Transfer item(stats_.frames, bits, start, frame);
      out->wait_for_space();
      item.record_span(basename(), start, sc_core::sc_time_stamp() + timing_.latency());
      ++stats_.frames;
      stats_.frame_bytes += frame->size();
      out->push(std::move(item), timing_.latency());
    }
  }
}

std::uint64_t PacketParserStats::rejected_total() const {
  return std::accumulate(rejected.begin(), rejected.end(), std::uint64_t{0});
}

PacketParser::PacketParser(const sc_core::sc_module_name& name, const StageTiming& timing)
    : sc_core::sc_module(name), in("in"), out("out"), timing_(timing) {
  SC_THREAD(run);
}

void PacketParser::run() {
  for (;;) {
    const Transfer item = in->pop();
    const SharedBytes& frame = item.bytes();
    sc_core::wait(timing_.service_time(8ULL * frame->size()));
    ParseResult parsed = parse_frame(frame->data(), frame->size());
    if (!parsed.ok()) {
      ++stats_.rejected[static_cast<std::size_t>(*parsed.error)];
      continue;
    }
    ++stats_.accepted;
    out->wait_for_space();
    out->push(ReceivedPacket{frame, std::move(parsed.packet)}, timing_.latency());
  }
}

void declare_packet_keys(config::Schema& schema) {
  using config::integer_key;
  schema.add(config::number_key("packet.clock_mhz", 250, "MHz",
                                "clock of the packet builder and parser")
                 .at_least(1)
                 .at_most(100000));
  schema.add(integer_key("packet.builder_bytes_per_cycle", 64, "bytes",
                         "packet builder datapath width")
                 .at_least(1)
                 .at_most(4096));
  schema.add(integer_key("packet.builder_latency_cycles", 8, "cycles",
                         "packet builder pipeline latency")
                 .at_least(0)
                 .at_most(1000000));
  schema.add(integer_key("packet.parser_bytes_per_cycle", 64, "bytes",
                         "packet parser datapath width")
                 .at_least(1)
                 .at_most(4096));
  schema.add(integer_key("packet.parser_latency_cycles", 8, "cycles",
                         "packet parser pipeline latency (header checks, ICRC)")
                 .at_least(0)
                 .at_most(1000000));
}

PacketBlockTiming packet_block_timing(const config::Section& packet) {
  const ClockDomain clock(packet.number("clock_mhz"));
  const auto integer = [&packet](const char* key) { return packet.integer(key); };
  return PacketBlockTiming{
      StageTiming::clocked(clock, integer("builder_latency_cycles"),
                           integer("builder_bytes_per_cycle"), 1),
      StageTiming::clocked(clock, integer("parser_latency_cycles"),
                           integer("parser_bytes_per_cycle"), 1)};
}

}  // namespace rnicsim::packet
