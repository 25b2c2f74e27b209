#include "nic/packet/packet_blocks.hpp"

#include <limits>
#include <numeric>
#include <utility>

#include "common/clock_domain.hpp"
#include "nic/packet/icrc_blocks.hpp"
#include "nic/packet/rtl_stream_timing.hpp"

namespace rnicsim::packet {

PacketBuilder::PacketBuilder(const sc_core::sc_module_name& name, const StageTiming& timing)
    : Stage<TransmitRequest, OutgoingFrame>(name, timing, Occupancy::kOutputs,
                                            StageProcess::kMethod) {}

std::size_t PacketBuilder::max_outputs(const TransmitRequest& request) const {
  if (request.single_packet) return 1;
  // An invalid PMTU is serve's to report; no promise can be made for it.
  if (!is_valid_pmtu(request.pmtu)) return std::numeric_limits<std::size_t>::max();
  return packet_count(request.payload ? request.payload->size() : 0, request.pmtu);
}

void PacketBuilder::serve(TransmitRequest& request, Emitter& emitter) {
  const std::size_t length = request.payload ? request.payload->size() : 0;
  const std::uint8_t* payload = request.payload ? request.payload->data() : nullptr;
  if (request.single_packet) {
    std::shared_ptr<Bytes> bytes = frames_.take(0);
    build_frame_into(*bytes, request.header_template, payload, length, IcrcHandling::kSkip);
    emitter.emit(OutgoingFrame{stats().items_out, std::move(bytes), service_start(), {}});
    return;
  }
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
    std::shared_ptr<Bytes> bytes = frames_.take(0);
    build_frame_into(*bytes, headers, payload + segment.payload_offset, segment.payload_length,
                     IcrcHandling::kSkip);
    emitter.emit(OutgoingFrame{stats().items_out, std::move(bytes), service_start(), {}});
  }
}

namespace {

class ModelParserEngine final : public ParserEngine {
 public:
  ParseResult parse(const std::uint8_t* frame, std::size_t length) override {
    return parse_frame(frame, length, IcrcHandling::kSkip);
  }
  const char* name() const override { return "model"; }
};

}  // namespace

std::unique_ptr<ParserEngine> make_model_parser_engine() {
  return std::make_unique<ModelParserEngine>();
}

PacketParser::PacketParser(const sc_core::sc_module_name& name, const StageTiming& timing,
                           std::unique_ptr<ParserEngine> engine)
    : Stage<Transfer, ReceivedPacket>(name, timing, Occupancy::kInput, StageProcess::kMethod),
      engine_(std::move(engine)) {}

std::uint64_t PacketParser::rejected_total() const {
  return std::accumulate(rejected_.begin(), rejected_.end(), std::uint64_t{0});
}

void PacketParser::serve(Transfer& frame, Emitter& emitter) {
  const SharedBytes& bytes = frame.bytes();
  ParseResult parsed = engine_->parse(bytes->data(), bytes->size());
  if (!parsed.ok()) {
    ++rejected_[static_cast<std::size_t>(*parsed.error)];
    return;
  }
  emitter.emit(ReceivedPacket{bytes, std::move(parsed.packet)});
}

void declare_packet_keys(config::Schema& schema) {
  using config::integer_key;
  schema.add(config::string_key("packet.builder_impl", "model",
                                "implementation of the packet builder: model (C++)")
                 .one_of({"model"}));
  schema.add(config::string_key("packet.parser_impl", "model",
                                "implementation of the packet parser: model (C++) or rtl (the "
                                "verilated rtl/packet_parser)")
                 .one_of({"model", "rtl"}));
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
                         "packet parser pipeline latency (header checks; the ICRC is the "
                         "receive ICRC block's)")
                 .at_least(0)
                 .at_most(1000000));
  add_rtl_stream_timing_check(schema, {"packet.parser_impl", "packet.parser_bytes_per_cycle",
                                       "packet.parser_latency_cycles", "rtl/packet_parser"});
  declare_icrc_keys(schema);
}

PacketBlockConfig packet_block_config(const config::Section& packet) {
  const ClockDomain clock(packet.number("clock_mhz"));
  const auto integer = [&packet](const char* key) { return packet.integer(key); };
  const auto impl = [&packet](const char* key) { return parse_block_impl(packet.text(key)); };
  PacketBlockConfig c;
  c.builder_impl = impl("builder_impl");
  c.builder = StageTiming::clocked(clock, integer("builder_latency_cycles"),
                                   integer("builder_bytes_per_cycle"), 1);
  c.parser_impl = impl("parser_impl");
  c.parser_bytes_per_cycle = integer("parser_bytes_per_cycle");
  c.parser = StageTiming::clocked(clock, integer("parser_latency_cycles"),
                                  c.parser_bytes_per_cycle, 1);
  return c;
}

}  // namespace rnicsim::packet
