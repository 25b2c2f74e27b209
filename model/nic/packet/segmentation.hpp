#pragma once
// How a message is cut into packets on the wire: opcodes, PSNs and payload
// slices, per the IBTA rules, which Linux rxe implements too: FIRST and MIDDLE
// carry exactly one PMTU, LAST the rest, a message that fits one PMTU is
// ONLY; a zero-length message is one empty ONLY packet.
#include <cstdint>
#include <vector>

#include "formats/opcodes.hpp"

namespace rnicsim::packet {

enum class MessageKind : std::uint8_t {
  kSend,
  kSendWithImm,
  kSendWithInvalidate,  // RC only
  kRdmaWrite,           // RC, UC
  kRdmaWriteWithImm,    // RC, UC
  kRdmaReadResponse,    // RC only; sent by the responder
};

struct SegmentedPacket {
  std::uint8_t opcode = 0;
  std::uint32_t psn = 0;             // 24 bits, wrapping
  std::uint64_t payload_offset = 0;  // into the message
  std::uint32_t payload_length = 0;
  // Extended headers the packet carries, from the opcode table: RETH on the
  // FIRST / ONLY of a WRITE, ImmDt and IETH on LAST / ONLY, AETH on READ
  // RESPONSE FIRST / LAST / ONLY, DETH on UD.
  bool has_reth = false;
  bool has_imm_dt = false;
  bool has_ieth = false;
  bool has_aeth = false;
  bool has_deth = false;
  // Set on the last packet of an RC request so the responder acknowledges
  // the message (rxe does the same). UC and UD are never acknowledged and a
  // responder sends A=0 (REFERENCE section 4), so they leave it clear.
  bool ack_req = false;

  bool operator==(const SegmentedPacket& other) const;
};

// Packets of a `length`-byte message at path MTU `pmtu`: ceil(length / pmtu),
// at least one. Also the PSNs a READ REQUEST of `length` bytes consumes.
std::uint32_t packet_count(std::uint64_t length, std::uint32_t pmtu);

// The packets of one message, starting at `first_psn`. Throws
// std::invalid_argument for an invalid PMTU, a PSN wider than 24 bits, a kind
// the transport does not have (UC: no invalidate or READ; UD: SEND and SEND
// WITH IMM only), a UD message longer than one PMTU or a message longer than
// 2^31 bytes (the IBTA limit).
std::vector<SegmentedPacket> segment_message(MessageKind kind, Transport transport,
                                             std::uint32_t pmtu, std::uint32_t first_psn,
                                             std::uint64_t length);

}  // namespace rnicsim::packet
