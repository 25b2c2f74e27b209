#include "nic/protection/request_checks.hpp"

#include "formats/opcodes.hpp"
#include "interface/mpt_format.hpp"
#include "nic/protection/psn.hpp"

namespace rnicsim {
namespace {

// AETH NAK syndromes (REFERENCE section 5).
constexpr std::uint8_t kNakSequence = 0x60, kNakInvalidRequest = 0x61, kNakRemoteAccess = 0x62;
constexpr std::uint8_t kReadRequest = 0x0C, kCompareSwap = 0x13, kFetchAdd = 0x14;

bool is_send(std::uint8_t opcode) { return opcode <= 0x05; }
bool is_write(std::uint8_t opcode) { return opcode >= 0x06 && opcode <= 0x0B; }

}  // namespace

const char* to_string(RequestCheck check) {
  switch (check) {
    case RequestCheck::kAccepted:
      return "accepted";
    case RequestCheck::kNoQp:
      return "no_qp";
    case RequestCheck::kWrongTransport:
      return "wrong_transport";
    case RequestCheck::kDuplicate:
      return "duplicate";
    case RequestCheck::kOutOfSequence:
      return "out_of_sequence";
    case RequestCheck::kNotRequest:
      return "not_request";
    case RequestCheck::kOpcodeSequence:
      return "opcode_sequence";
    case RequestCheck::kPayloadLength:
      return "payload_length";
    case RequestCheck::kNoRemoteRight:
      return "no_remote_right";
    case RequestCheck::kAtomicAlignment:
      return "atomic_alignment";
    case RequestCheck::kMessageTooLong:
      return "message_too_long";
    case RequestCheck::kMessageTooShort:
      return "message_too_short";
  }
  return "?";
}

std::uint8_t nak_syndrome(RequestCheck check) {
  switch (check) {
    case RequestCheck::kOutOfSequence:
      return kNakSequence;
    case RequestCheck::kNoRemoteRight:
      return kNakRemoteAccess;
    case RequestCheck::kNotRequest:
    case RequestCheck::kOpcodeSequence:
    case RequestCheck::kPayloadLength:
    case RequestCheck::kAtomicAlignment:
    case RequestCheck::kMessageTooLong:
    case RequestCheck::kMessageTooShort:
      return kNakInvalidRequest;
    default:
      return 0;
  }
}

RequestCheck check_request_header(const ResponderQpView& qp, const packet::RocePacket& packet) {
  if (!qp.ready) return RequestCheck::kNoQp;
  const std::uint8_t opcode = packet.bth.opcode;
  const packet::OpcodeInfo* info = packet::find_opcode(opcode);
  if (info == nullptr || info->transport != packet::Transport::kRc) {
    return RequestCheck::kWrongTransport;
  }
  const std::int32_t ahead = psn_diff(packet.bth.psn, qp.expected_psn);
  if (ahead < 0) return RequestCheck::kDuplicate;
  if (ahead > 0) return RequestCheck::kOutOfSequence;
  const bool send = is_send(opcode), write = is_write(opcode);
  if (!send && !write) {
    const bool single = opcode == kReadRequest || opcode == kCompareSwap || opcode == kFetchAdd;
    if (!single) return RequestCheck::kNotRequest;
    // A READ or atomic between a message's packets breaks its sequence.
    return qp.in_message ? RequestCheck::kOpcodeSequence : RequestCheck::kAccepted;
  }
  const packet::MessagePosition position = info->position;
  const bool starts =
      position == packet::MessagePosition::kFirst || position == packet::MessagePosition::kOnly;
  if (starts == qp.in_message) return RequestCheck::kOpcodeSequence;
  if (!starts && qp.message_is_send != send) return RequestCheck::kOpcodeSequence;
  if (!packet::payload_length_ok(info->payload, packet.payload_length, qp.pmtu)) {
    return RequestCheck::kPayloadLength;
  }
  return RequestCheck::kAccepted;
}

RequestCheck check_remote_right(std::uint32_t qp_access, std::uint8_t opcode) {
  std::uint32_t needs = 0;
  if (is_write(opcode)) needs = IBV_ACCESS_REMOTE_WRITE;
  if (opcode == kReadRequest) needs = IBV_ACCESS_REMOTE_READ;
  if (opcode == kCompareSwap || opcode == kFetchAdd) needs = IBV_ACCESS_REMOTE_ATOMIC;
  return (qp_access & needs) == needs ? RequestCheck::kAccepted : RequestCheck::kNoRemoteRight;
}

RequestCheck check_atomic_alignment(std::uint64_t virtual_address) {
  // Atomics need natural (8-byte) alignment, IBTA 9.4.5.
  return virtual_address % 8 == 0 ? RequestCheck::kAccepted : RequestCheck::kAtomicAlignment;
}

RequestCheck check_message_length(bool is_send, bool last, std::uint64_t offset,
                                  std::uint64_t length, std::uint64_t target_length) {
  // offset <= target_length holds (earlier packets passed), so no sum wraps.
  if (length > target_length - offset) return RequestCheck::kMessageTooLong;
  if (!is_send && last && offset + length != target_length) return RequestCheck::kMessageTooShort;
  return RequestCheck::kAccepted;
}

}  // namespace rnicsim
