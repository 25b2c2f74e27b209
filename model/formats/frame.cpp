#include "formats/frame.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "formats/icrc.hpp"
#include "formats/opcodes.hpp"

namespace rnicsim::packet {

namespace {

constexpr std::size_t kPadAlignment = 4;

void decode_ext_header(ExtHeader header, const std::uint8_t* in, RocePacket& packet) {
  switch (header) {
    case ExtHeader::kReth:
      packet.reth = Reth::decode(in);
      break;
    case ExtHeader::kAeth:
      packet.aeth = Aeth::decode(in);
      break;
    case ExtHeader::kAtomicEth:
      packet.atomic_eth = AtomicEth::decode(in);
      break;
    case ExtHeader::kAtomicAckEth:
      packet.atomic_ack_eth = AtomicAckEth::decode(in);
      break;
    case ExtHeader::kImmDt:
      packet.imm_dt = ImmDt::decode(in);
      break;
    case ExtHeader::kIeth:
      packet.ieth = Ieth::decode(in);
      break;
    case ExtHeader::kDeth:
      packet.deth = Deth::decode(in);
      break;
    case ExtHeader::kCnpReserved:
      break;  // reserved: ignored on receive
  }
}

// True when the packet carries exactly the extended headers of the opcode.
bool ext_headers_match(const OpcodeInfo& info, const RocePacket& packet) {
  return packet.reth.has_value() == info.has_header(ExtHeader::kReth) &&
         packet.aeth.has_value() == info.has_header(ExtHeader::kAeth) &&
         packet.atomic_eth.has_value() == info.has_header(ExtHeader::kAtomicEth) &&
         packet.atomic_ack_eth.has_value() == info.has_header(ExtHeader::kAtomicAckEth) &&
         packet.imm_dt.has_value() == info.has_header(ExtHeader::kImmDt) &&
         packet.ieth.has_value() == info.has_header(ExtHeader::kIeth) &&
         packet.deth.has_value() == info.has_header(ExtHeader::kDeth);
}

// The packet must carry the header (ext_headers_match).
void encode_ext_header(ExtHeader header, const RocePacket& packet, std::uint8_t* out) {
  switch (header) {
    case ExtHeader::kReth:
      packet.reth->encode(out);
      break;
    case ExtHeader::kAeth:
      packet.aeth->encode(out);
      break;
    case ExtHeader::kAtomicEth:
      packet.atomic_eth->encode(out);
      break;
    case ExtHeader::kAtomicAckEth:
      packet.atomic_ack_eth->encode(out);
      break;
    case ExtHeader::kImmDt:
      packet.imm_dt->encode(out);
      break;
    case ExtHeader::kIeth:
      packet.ieth->encode(out);
      break;
    case ExtHeader::kDeth:
      packet.deth->encode(out);
      break;
    case ExtHeader::kCnpReserved:
      std::fill_n(out, kCnpReservedSize, std::uint8_t{0});
      break;
  }
}

// The checks of parse_frame in order; fills `result` as it goes.
std::optional<ParseError> parse_into(const std::uint8_t* frame, std::size_t length,
                                     IcrcHandling icrc_handling, ParseResult& result) {
  RocePacket& packet = result.packet;

  const std::optional<EthernetHeader> ethernet = EthernetHeader::decode(frame, length);
  if (!ethernet) return ParseError::kTruncatedEthernet;
  packet.ethernet = *ethernet;
  const bool ipv6 = ethernet->ether_type == kEtherTypeIpv6;
  if (!ipv6 && ethernet->ether_type != kEtherTypeIpv4) return ParseError::kUnsupportedEtherType;

  const std::uint8_t* const ip = frame + ethernet->size();
  const std::size_t ip_available = length - ethernet->size();
  if (ip_available == 0) return ParseError::kIpLength;
  if ((ip[0] >> 4) != (ipv6 ? 6 : 4)) return ParseError::kIpVersion;

  std::size_t ip_header_size = 0;
  std::size_t ip_payload_size = 0;
  std::uint8_t protocol = 0;
  if (ipv6) {
    ip_header_size = Ipv6Header::kSize;
    if (ip_available < ip_header_size) return ParseError::kIpLength;
    const Ipv6Header header = Ipv6Header::decode(ip);
    packet.ip = header;
    ip_payload_size = header.payload_length;
    if (ip_payload_size > ip_available - ip_header_size) return ParseError::kIpLength;
    protocol = header.next_header;
  } else {
    ip_header_size = std::size_t{ip[0] & 0xFu} * 4;
    if (ip_header_size < Ipv4Header::kSize || ip_available < ip_header_size) {
      return ParseError::kIpLength;
    }
    const Ipv4Header header = Ipv4Header::decode(ip);
    packet.ip = header;
    if (!ipv4_header_checksum_ok(ip, ip_header_size)) return ParseError::kIpv4Checksum;
    if (header.total_length < ip_header_size || header.total_length > ip_available) {
      return ParseError::kIpLength;
    }
    if ((header.flags_fragment & (kIpv4MoreFragments | kIpv4FragmentOffsetMask)) != 0) {
      return ParseError::kIpv4Fragment;
    }
    ip_payload_size = header.total_length - ip_header_size;
    protocol = header.protocol;
  }
  if (protocol != kIpProtocolUdp) return ParseError::kNotUdp;

  // From here on, everything lies within the IP packet, which lies within the
  // frame; L2 padding after it is never looked at.
  const std::uint8_t* const udp = ip + ip_header_size;
  if (ip_payload_size < UdpHeader::kSize) return ParseError::kUdpLength;
  packet.udp = UdpHeader::decode(udp);
  if (packet.udp.destination_port != kRoceV2UdpPort) return ParseError::kUdpPort;
  if (packet.udp.length != ip_payload_size ||
      packet.udp.length < UdpHeader::kSize + Bth::kSize + kIcrcSize) {
    return ParseError::kUdpLength;
  }

  const std::uint8_t* const bth = udp + UdpHeader::kSize;
  packet.bth = Bth::decode(bth);
  if (packet.bth.tver != 0) return ParseError::kBthVersion;
  const OpcodeInfo* const info = find_opcode(packet.bth.opcode);
  if (info == nullptr) return ParseError::kUnsupportedOpcode;

  const std::uint8_t* const icrc = udp + packet.udp.length - kIcrcSize;
  const std::uint8_t* cursor = bth + Bth::kSize;
  if (static_cast<std::size_t>(icrc - cursor) < info->ext_header_bytes()) {
    return ParseError::kHeaderLength;
  }
  for (std::size_t i = 0; i < info->header_count; ++i) {
    decode_ext_header(info->headers[i], cursor, packet);
    cursor += ext_header_size(info->headers[i]);
  }

  const std::size_t data_size = static_cast<std::size_t>(icrc - cursor);
  const std::size_t pad = packet.bth.pad_count;
  if (pad > data_size || (pad != 0 && info->payload == PayloadRule::kNone) ||
      data_size % kPadAlignment != 0) {
    return ParseError::kPad;
  }
  packet.payload_offset = static_cast<std::size_t>(cursor - frame);
  packet.payload_length = data_size - pad;
  if (!payload_length_ok(info->payload, packet.payload_length, 0)) {
    return ParseError::kPayloadLength;
  }

  if (icrc_handling == IcrcHandling::kSkip) return std::nullopt;
  result.icrc_received = load_icrc(icrc);
  result.icrc_computed = compute_icrc(ip, static_cast<std::size_t>(icrc - ip));
  result.icrc_ok = result.icrc_received == result.icrc_computed;
  if (!result.icrc_ok) return ParseError::kIcrcMismatch;
  return std::nullopt;
}

}  // namespace

const char* to_string(ParseError error) {
  switch (error) {
    case ParseError::kTruncatedEthernet:
      return "truncated Ethernet header";
    case ParseError::kUnsupportedEtherType:
      return "unsupported EtherType";
    case ParseError::kIpVersion:
      return "IP version does not match the EtherType";
    case ParseError::kIpv4Checksum:
      return "bad IPv4 header checksum";
    case ParseError::kIpLength:
      return "IP length inconsistent with the frame";
    case ParseError::kIpv4Fragment:
      return "IPv4 fragment";
    case ParseError::kNotUdp:
      return "not UDP";
    case ParseError::kUdpPort:
      return "UDP destination port is not 4791";
    case ParseError::kUdpLength:
      return "UDP length inconsistent";
    case ParseError::kBthVersion:
      return "BTH transport version is not 0";
    case ParseError::kUnsupportedOpcode:
      return "unsupported BTH opcode";
    case ParseError::kHeaderLength:
      return "packet too short for the opcode's headers";
    case ParseError::kPad:
      return "pad count inconsistent";
    case ParseError::kPayloadLength:
      return "payload length illegal for the opcode";
    case ParseError::kIcrcMismatch:
      return "ICRC mismatch";
  }
  return "unknown parse error";
}

ParseResult parse_frame(const std::uint8_t* frame, std::size_t length, IcrcHandling icrc) {
  ParseResult result;
  result.error = parse_into(frame, length, icrc, result);
  return result;
}

std::optional<IcrcLocation> locate_icrc(const std::uint8_t* frame, std::size_t length) {
  const std::optional<EthernetHeader> ethernet = EthernetHeader::decode(frame, length);
  if (!ethernet) return std::nullopt;
  const bool ipv6 = ethernet->ether_type == kEtherTypeIpv6;
  if (!ipv6 && ethernet->ether_type != kEtherTypeIpv4) return std::nullopt;
  const std::size_t ip_offset = ethernet->size();
  const std::uint8_t* const ip = frame + ip_offset;
  const std::size_t ip_available = length - ip_offset;
  if (ip_available == 0 || (ip[0] >> 4) != (ipv6 ? 6 : 4)) return std::nullopt;

  std::size_t ip_header_size = 0;
  std::size_t ip_payload_size = 0;
  std::uint8_t protocol = 0;
  if (ipv6) {
    ip_header_size = Ipv6Header::kSize;
    if (ip_available < ip_header_size) return std::nullopt;
    const Ipv6Header header = Ipv6Header::decode(ip);
    ip_payload_size = header.payload_length;
    protocol = header.next_header;
  } else {
    ip_header_size = std::size_t{ip[0] & 0xFu} * 4;
    if (ip_header_size < Ipv4Header::kSize || ip_available < ip_header_size) return std::nullopt;
    const Ipv4Header header = Ipv4Header::decode(ip);
    if (header.total_length < ip_header_size) return std::nullopt;
    ip_payload_size = header.total_length - ip_header_size;
    protocol = header.protocol;
  }
  if (protocol != kIpProtocolUdp || ip_payload_size > ip_available - ip_header_size ||
      ip_payload_size < UdpHeader::kSize) {
    return std::nullopt;
  }
  const UdpHeader udp = UdpHeader::decode(ip + ip_header_size);
  if (udp.destination_port != kRoceV2UdpPort || udp.length != ip_payload_size ||
      udp.length < UdpHeader::kSize + Bth::kSize + kIcrcSize) {
    return std::nullopt;
  }
  return IcrcLocation{ip_offset, ip_offset + ip_header_size + udp.length - kIcrcSize};
}

std::vector<std::uint8_t> build_frame(const RocePacket& headers, const std::uint8_t* payload,
                                      std::size_t length, IcrcHandling icrc) {
  std::vector<std::uint8_t> frame;
  build_frame_into(frame, headers, payload, length, icrc);
  return frame;
}

std::size_t frame_size(const RocePacket& headers, std::size_t length) {
  const OpcodeInfo* const info = find_opcode(headers.bth.opcode);
  const std::size_t pad = (kPadAlignment - length % kPadAlignment) % kPadAlignment;
  const std::size_t ip_size = headers.is_ipv6() ? Ipv6Header::kSize : Ipv4Header::kSize;
  return headers.ethernet.size() + ip_size + UdpHeader::kSize + Bth::kSize +
         (info == nullptr ? 0 : info->ext_header_bytes()) + length + pad + kIcrcSize;
}

void build_frame_into(std::vector<std::uint8_t>& frame, const RocePacket& headers,
                      const std::uint8_t* payload, std::size_t length, IcrcHandling icrc) {
  const OpcodeInfo* const info = find_opcode(headers.bth.opcode);
  if (info == nullptr) {
    throw std::invalid_argument("build_frame: unsupported opcode " +
                                std::to_string(headers.bth.opcode));
  }
  if (!payload_length_ok(info->payload, length, 0)) {
    throw std::invalid_argument(std::string("build_frame: ") + info->name + " cannot carry " +
                                std::to_string(length) + " payload bytes");
  }
  if (!ext_headers_match(*info, headers)) {
    throw std::invalid_argument(std::string("build_frame: extended headers do not match ") +
                                info->name);
  }

  const std::size_t pad = (kPadAlignment - length % kPadAlignment) % kPadAlignment;
  const std::size_t ip_size = headers.is_ipv6() ? Ipv6Header::kSize : Ipv4Header::kSize;
  const std::size_t udp_size =
      UdpHeader::kSize + Bth::kSize + info->ext_header_bytes() + length + pad + kIcrcSize;

  EthernetHeader ethernet = headers.ethernet;
  ethernet.ether_type = headers.is_ipv6() ? kEtherTypeIpv6 : kEtherTypeIpv4;
  // Headers first, then the payload appended, then the zero pad and ICRC:
  // zero-filling the whole frame first would write every payload byte twice.
  const std::size_t header_bytes =
      ethernet.size() + ip_size + UdpHeader::kSize + Bth::kSize + info->ext_header_bytes();
  frame.clear();
  frame.reserve(ethernet.size() + ip_size + udp_size);
  frame.resize(header_bytes);
  std::uint8_t* out = frame.data();
  ethernet.encode(out);
  out += ethernet.size();

  std::uint8_t* const ip = out;
  if (const auto* ipv4 = std::get_if<Ipv4Header>(&headers.ip)) {
    Ipv4Header header = *ipv4;
    header.total_length = static_cast<std::uint16_t>(ip_size + udp_size);
    header.checksum = 0;
    header.encode(ip);
    store_be16(ipv4_header_checksum(ip, ip_size), ip + 10);
  } else {
    Ipv6Header header = std::get<Ipv6Header>(headers.ip);
    header.payload_length = static_cast<std::uint16_t>(udp_size);
    header.encode(ip);
  }
  out += ip_size;

  UdpHeader udp = headers.udp;
  udp.length = static_cast<std::uint16_t>(udp_size);
  udp.checksum = 0;
  udp.encode(out);
  out += UdpHeader::kSize;

  Bth bth = headers.bth;
  bth.pad_count = static_cast<std::uint8_t>(pad);
  bth.encode(out);
  out += Bth::kSize;

  for (std::size_t i = 0; i < info->header_count; ++i) {
    encode_ext_header(info->headers[i], headers, out);
    out += ext_header_size(info->headers[i]);
  }
  if (length != 0) frame.insert(frame.end(), payload, payload + length);
  frame.resize(frame.size() + pad + kIcrcSize);  // zero pad and ICRC field

  if (icrc == IcrcHandling::kCompute) {
    std::uint8_t* const ip_start = frame.data() + ethernet.size();
    std::uint8_t* const icrc_field = frame.data() + frame.size() - kIcrcSize;
    store_icrc(compute_icrc(ip_start, static_cast<std::size_t>(icrc_field - ip_start)),
               icrc_field);
  }
}

}  // namespace rnicsim::packet
