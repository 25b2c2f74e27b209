#include "nic/packet/segmentation.hpp"

#include <stdexcept>
#include <string>
#include <tuple>

#include "formats/headers.hpp"

namespace rnicsim::packet {

namespace {

constexpr std::uint64_t kMaxMessageLength = std::uint64_t{1} << 31;  // IBTA

// Operation codes (opcode bits 4:0) of one message kind by position.
struct KindOpcodes {
  std::uint8_t first;
  std::uint8_t middle;
  std::uint8_t last;
  std::uint8_t only;
};

KindOpcodes kind_opcodes(MessageKind kind) {
  switch (kind) {
    case MessageKind::kSend:
      return {0x00, 0x01, 0x02, 0x04};
    case MessageKind::kSendWithImm:
      return {0x00, 0x01, 0x03, 0x05};
    case MessageKind::kSendWithInvalidate:
      return {0x00, 0x01, 0x16, 0x17};
    case MessageKind::kRdmaWrite:
      return {0x06, 0x07, 0x08, 0x0A};
    case MessageKind::kRdmaWriteWithImm:
      return {0x06, 0x07, 0x09, 0x0B};
    case MessageKind::kRdmaReadResponse:
      return {0x0D, 0x0E, 0x0F, 0x10};
  }
  throw std::invalid_argument("segment_message: unknown message kind");
}

// Opcode bits 7:5 of the transport, after checking it has this kind.
std::uint8_t transport_base(MessageKind kind, Transport transport) {
  switch (transport) {
    case Transport::kRc:
      return 0x00;
    case Transport::kUc:
      if (kind == MessageKind::kSendWithInvalidate || kind == MessageKind::kRdmaReadResponse) {
        break;
      }
      return 0x20;
    case Transport::kUd:
      if (kind != MessageKind::kSend && kind != MessageKind::kSendWithImm) break;
      return 0x60;
    case Transport::kCnp:
      break;
  }
  throw std::invalid_argument("segment_message: message kind not available on this transport");
}

}  // namespace

bool SegmentedPacket::operator==(const SegmentedPacket& other) const {
  return std::tie(opcode, psn, payload_offset, payload_length, has_reth, has_imm_dt, has_ieth,
                  has_aeth, has_deth, ack_req) ==
         std::tie(other.opcode, other.psn, other.payload_offset, other.payload_length,
                  other.has_reth, other.has_imm_dt, other.has_ieth, other.has_aeth, other.has_deth,
                  other.ack_req);
}

std::uint32_t packet_count(std::uint64_t length, std::uint32_t pmtu) {
  if (!is_valid_pmtu(pmtu)) {
    throw std::invalid_argument("invalid PMTU " + std::to_string(pmtu));
  }
  return length == 0 ? 1 : static_cast<std::uint32_t>((length + pmtu - 1) / pmtu);
}

std::vector<SegmentedPacket> segment_message(MessageKind kind, Transport transport,
                                             std::uint32_t pmtu, std::uint32_t first_psn,
                                             std::uint64_t length) {
  if (length > kMaxMessageLength) {
    throw std::invalid_argument("segment_message: longer than the 2^31-byte message limit");
  }
  const std::uint32_t count = packet_count(length, pmtu);
  if (first_psn > kPsnMask) throw std::invalid_argument("segment_message: PSN wider than 24 bits");
  const std::uint8_t base = transport_base(kind, transport);
  if (transport == Transport::kUd && count > 1) {
    throw std::invalid_argument("segment_message: a UD message must fit one PMTU");
  }
  const KindOpcodes ops = kind_opcodes(kind);

  std::vector<SegmentedPacket> packets(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    SegmentedPacket& p = packets[i];
    const bool first = i == 0;
    const bool last = i + 1 == count;
    p.opcode = static_cast<std::uint8_t>(base | (first && last ? ops.only
                                                 : first       ? ops.first
                                                 : last        ? ops.last
                                                               : ops.middle));
    p.psn = (first_psn + i) & kPsnMask;
    p.payload_offset = std::uint64_t{i} * pmtu;
    p.payload_length = static_cast<std::uint32_t>(last ? length - p.payload_offset : pmtu);
    const OpcodeInfo& info = *find_opcode(p.opcode);
    p.has_reth = info.has_header(ExtHeader::kReth);
    p.has_imm_dt = info.has_header(ExtHeader::kImmDt);
    p.has_ieth = info.has_header(ExtHeader::kIeth);
    p.has_aeth = info.has_header(ExtHeader::kAeth);
    p.has_deth = info.has_header(ExtHeader::kDeth);
    p.ack_req = last && transport == Transport::kRc && kind != MessageKind::kRdmaReadResponse;
  }
  return packets;
}

}  // namespace rnicsim::packet
