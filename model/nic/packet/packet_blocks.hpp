#pragma once
// The NIC's packet builder and parser as SystemC blocks, on the Stage template.
//
// PacketBuilder takes a transmit request (the QP's header template, the
// message kind, PSN and payload) and emits the message's frames: segmented
// at the path MTU with FIRST/MIDDLE/LAST/ONLY opcodes, headers and pad
// (build_frame), with the ICRC field left for the transmit ICRC block
// (icrc_blocks.hpp) to fill. PacketParser takes frames whose ICRC the receive
// ICRC block has checked and hands on the valid RoCEv2 packets (parse_frame
// without the ICRC), counting every rejected frame under its reason.
// Both move real bytes and charge their datapath: `bytes_per_cycle` beats
// plus `latency_cycles` in their clock domain (StageTiming::clocked), per
// frame emitted (builder) or taken (parser).
#include <array>
#include <cstdint>
#include <memory>
#include <systemc>
#include <vector>

#include "common/block_impl.hpp"
#include "common/byte_pool.hpp"
#include "common/stage.hpp"
#include "common/stage_span.hpp"
#include "common/stage_timing.hpp"
#include "common/transfer.hpp"
#include "config/config.hpp"
#include "config/run_config.hpp"
#include "formats/frame.hpp"
#include "nic/packet/parser_engine.hpp"
#include "nic/packet/segmentation.hpp"

namespace rnicsim::packet {

struct TransmitRequest {
  MessageKind kind = MessageKind::kSend;
  Transport transport = Transport::kRc;
  std::uint32_t pmtu = 1024;
  std::uint32_t first_psn = 0;
  // Ethernet, IP, UDP and the BTH fields every packet shares (P_Key, dest QP,
  // SE); opcode, PSN, pad and AckReq are set per packet.
  RocePacket header_template;
  Reth reth;  // WRITE: VA and R_Key (the DMA length is the message length)
  ImmDt imm_dt;
  Ieth ieth;
  Aeth aeth;            // READ RESPONSE
  Deth deth;            // UD
  SharedBytes payload;  // may be null for an empty message
  // The QP that sends it, for the sending unit's own bookkeeping (a packet
  // whose payload read failed names its QP); not on the wire.
  std::uint32_t source_qpn = 0;
  // The transport made one packet itself: header_template holds its opcode,
  // PSN and extended headers, `payload` its payload. The builder builds just
  // that packet (the RC units send packet by packet; kind, pmtu and
  // first_psn are then unused).
  bool single_packet = false;
};

// A frame on its way from the builder to the transmit ICRC block: its ICRC
// field is still zero and its bytes are writable, as nothing else holds them.
struct OutgoingFrame {
  std::uint64_t index = 0;  // frames the builder made before this one
  std::shared_ptr<Bytes> bytes;
  sc_core::sc_time started;  // when the builder started it
  StageSpans spans;

  std::uint64_t size_bits() const { return 8ULL * bytes->size(); }
  void record_span(const char* stage, const sc_core::sc_time& start, const sc_core::sc_time& end) {
    spans.push_back(StageSpan{stage, start, end});
  }
};

// A frame the parser accepted, with its decoded headers.
struct ReceivedPacket {
  SharedBytes frame;
  RocePacket packet;  // payload_offset / payload_length locate the payload in `frame`
};

struct PacketBlockConfig {
  BlockImpl builder_impl = BlockImpl::kModel;
  StageTiming builder;
  BlockImpl parser_impl = BlockImpl::kModel;
  std::uint64_t parser_bytes_per_cycle = 0;
  StageTiming parser;
};

// Statistics (StageStats): items = messages, items_out = frames, bits = frame
// bits (no FCS).
class PacketBuilder : public Stage<TransmitRequest, OutgoingFrame> {
 public:
  PacketBuilder(const sc_core::sc_module_name& name, const StageTiming& timing);

 protected:
  void serve(TransmitRequest& request, Emitter& emitter) override;
  // One per packet of the message.
  std::size_t max_outputs(const TransmitRequest& request) const override;

 private:
  BytePool frames_;  // a frame's buffer comes back when its last holder (the peer) is done
};

// Statistics (StageStats): items = frames taken, items_out = packets accepted,
// dropped = frames rejected; rejected() counts them per ParseError.
class PacketParser : public Stage<Transfer, ReceivedPacket> {
 public:
  using RejectCounts = std::array<std::uint64_t, kParseErrorCount>;  // indexed by ParseError

  PacketParser(const sc_core::sc_module_name& name, const StageTiming& timing,
               std::unique_ptr<ParserEngine> engine = make_model_parser_engine());

  const RejectCounts& rejected() const { return rejected_; }
  // Which engine parses: "model" or "rtl/packet_parser".
  const char* engine_name() const { return engine_->name(); }
  std::uint64_t rejected_total() const;

 protected:
  void serve(Transfer& frame, Emitter& emitter) override;

 private:
  std::unique_ptr<ParserEngine> engine_;
  RejectCounts rejected_{};
};

// Declares the packet.* keys (builder, parser) and the icrc.* keys (the ICRC
// block pair, icrc_blocks.hpp).
void declare_packet_keys(config::Schema& schema);
// From a node's "packet" section.
PacketBlockConfig packet_block_config(const config::Section& packet);

}  // namespace rnicsim::packet
