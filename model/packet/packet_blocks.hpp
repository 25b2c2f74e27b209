#pragma once
// The NIC's packet builder and parser as SystemC blocks.
//
// PacketBuilder takes a transmit request (the QP's header template, the
// message kind, PSN and payload) and emits the message's frames: segmented
// at the path MTU with FIRST/MIDDLE/LAST/ONLY opcodes, headers, pad and ICRC
// (build_frame). PacketParser takes frames and hands on the valid RoCEv2
// packets (parse_frame), counting every rejected frame under its reason.
// Both move real bytes and charge their datapath: `bytes_per_cycle` beats
// plus `latency_cycles` in their clock domain (StageTiming::clocked).
#include <array>
#include <cstdint>
#include <systemc>

#include "common/channel.hpp"
#include "common/module_macros.hpp"
#include "common/stage_timing.hpp"
#include "common/transfer.hpp"
#include "config/config.hpp"
#include "config/run_config.hpp"
#include "packet/frame.hpp"
#include "packet/segmentation.hpp"

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
};

// A frame the parser accepted, with its decoded headers.
struct ReceivedPacket {
  SharedBytes frame;
  RocePacket packet;  // payload_offset / payload_length locate the payload in `frame`
};

struct PacketBlockTiming {
  StageTiming builder;
  StageTiming parser;
};

struct PacketBuilderStats {
  std::uint64_t messages = 0;
  std::uint64_t frames = 0;
  std::uint64_t frame_bytes = 0;
};

class PacketBuilder : public sc_core::sc_module {
 public:
  sc_core::sc_port<PopIf<TransmitRequest>> in;
  sc_core::sc_port<PushIf<Transfer>> out;  // one Transfer per frame; its bytes are the frame

  RNICSIM_PROCESS_MODULE(PacketBuilder);
  PacketBuilder(const sc_core::sc_module_name& name, const StageTiming& timing);

  const PacketBuilderStats& stats() const { return stats_; }

 private:
  void run();

  StageTiming timing_;
  PacketBuilderStats stats_;
};

struct PacketParserStats {
  std::uint64_t accepted = 0;
  std::array<std::uint64_t, kParseErrorCount> rejected{};  // indexed by ParseError
  std::uint64_t rejected_total() const;
};

class PacketParser : public sc_core::sc_module {
 public:
  sc_core::sc_port<PopIf<Transfer>> in;
  sc_core::sc_port<PushIf<ReceivedPacket>> out;

  RNICSIM_PROCESS_MODULE(PacketParser);
  PacketParser(const sc_core::sc_module_name& name, const StageTiming& timing);

  const PacketParserStats& stats() const { return stats_; }

 private:
  void run();

  StageTiming timing_;
  PacketParserStats stats_;
};

void declare_packet_keys(config::Schema& schema);
// From a node's "packet" section.
PacketBlockTiming packet_block_timing(const config::Section& packet);

}  // namespace rnicsim::packet
