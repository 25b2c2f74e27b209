#pragma once
// The RC responder's checks on a request packet, in the order the responder
// makes them (IBTA 9.7.5.1), as kernel-free functions of the packet and of
// what the responder knows of the QP. The Responder (transport/) calls them
// and acts on the verdicts; the fuzz build (testbench/fuzz) calls them
// directly. The memory key check is access_check.hpp's.
//
//   1. check_request_header: QP state, transport, PSN, opcode sequence,
//      payload length against the path MTU;
//   2. (a SEND's or WRITE WITH IMMEDIATE's receive WQE: the responder's own)
//   3. check_remote_right: the QP grants the remote right the opcode needs;
//      check_atomic_alignment for atomics;
//   4. (the key, bounds and PD: check_region_access)
//   5. check_message_length, per packet: the bytes so far against the
//      receive buffer (SEND) or the RETH's DMA length (WRITE).
#include <cstdint>

#include "formats/frame.hpp"

namespace rnicsim {

// What the responder knows of the QP a request names when it arrives.
struct ResponderQpView {
  bool ready = false;  // the QP exists, is not destroyed, and is in RTR or RTS
  std::uint32_t expected_psn = 0;
  std::uint32_t pmtu = 0;        // bytes
  bool in_message = false;       // a SEND or WRITE has had its FIRST and not its LAST
  bool message_is_send = false;  // which of the two, when in_message
};

// Each check's verdict. The comments give what the responder does.
enum class RequestCheck : std::uint8_t {
  kAccepted,         // go on to the next check
  kNoQp,             // no such QP, or not in RTR/RTS: dropped silently
  kWrongTransport,   // a UC or UD opcode to an RC QP: dropped silently, as rxe does
  kDuplicate,        // a PSN before the expected one: answered again, not executed again
  kOutOfSequence,    // a PSN after it: sequence-error NAK, once per gap
  kNotRequest,       // an RC opcode that is not a request: invalid-request NAK
  kOpcodeSequence,   // FIRST/ONLY inside a message, MIDDLE/LAST outside one or of the
                     // other kind: invalid-request NAK
  kPayloadLength,    // FIRST/MIDDLE not exactly the path MTU, LAST/ONLY beyond it:
                     // invalid-request NAK
  kNoRemoteRight,    // the QP does not grant the remote right: remote-access NAK
  kAtomicAlignment,  // an atomic's address not 8-byte aligned: invalid-request NAK
  kMessageTooLong,   // more bytes than the receive buffer (SEND: also a local length
                     // error in the receive CQE) or than the RETH names: invalid-request NAK
  kMessageTooShort,  // a WRITE's LAST/ONLY ends before the RETH's DMA length:
                     // invalid-request NAK
};
inline constexpr std::size_t kRequestCheckCount =
    static_cast<std::size_t>(RequestCheck::kMessageTooShort) + 1;

const char* to_string(RequestCheck check);

// The AETH NAK syndrome a verdict is answered with; 0 for one answered
// with no NAK (accepted, dropped, duplicate).
std::uint8_t nak_syndrome(RequestCheck check);

// Step 1, on a packet the parser passed.
RequestCheck check_request_header(const ResponderQpView& qp, const packet::RocePacket& packet);

// Step 3: the QP's access flags (IBV_ACCESS_REMOTE_*) against a request
// opcode's need; SENDs need none.
RequestCheck check_remote_right(std::uint32_t qp_access, std::uint8_t opcode);
RequestCheck check_atomic_alignment(std::uint64_t virtual_address);

// Step 5: a packet of `length` bytes at `offset` of a message whose target
// holds `target_length` bytes (a SEND's receive buffer, a WRITE's DMA
// length); `last`: the packet ends the message. A SEND may be shorter than
// its buffer; a WRITE must fill exactly the length its RETH gave.
RequestCheck check_message_length(bool is_send, bool last, std::uint64_t offset,
                                  std::uint64_t length, std::uint64_t target_length);

}  // namespace rnicsim
