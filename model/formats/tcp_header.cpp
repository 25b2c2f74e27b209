#include "formats/tcp_header.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <tuple>

namespace rnicsim::packet {

namespace {

constexpr std::uint8_t kOptionEnd = 0;
constexpr std::uint8_t kOptionNop = 1;
constexpr std::uint8_t kOptionTimestamp = 8;
constexpr std::uint8_t kTimestampOptionLength = 10;
constexpr std::size_t kIpv4MinimumHeaderSize = 20;
constexpr std::size_t kMaxIpv4TotalLength = 0xFFFF;

std::uint8_t bit(bool value, int position) {
  return static_cast<std::uint8_t>(value ? 1u << position : 0u);
}

std::uint32_t pseudo_header_sum(std::uint32_t source, std::uint32_t destination,
                                std::size_t length) {
  std::uint32_t sum = (source >> 16) + (source & 0xFFFF) + (destination >> 16) +
                      (destination & 0xFFFF) + kIpProtocolTcp + static_cast<std::uint32_t>(length);
  while (sum > 0xFFFF) sum = (sum & 0xFFFF) + (sum >> 16);
  return sum;
}

// Walks the options between the fixed header and the data offset; false when
// one is malformed.
bool decode_options(const std::uint8_t* options, std::size_t length, TcpHeader& header) {
  std::size_t at = 0;
  while (at < length) {
    const std::uint8_t kind = options[at];
    if (kind == kOptionEnd) return true;
    if (kind == kOptionNop) {
      ++at;
      continue;
    }
    if (at + 1 >= length) return false;
    const std::size_t option_length = options[at + 1];
    if (option_length < 2 || at + option_length > length) return false;
    if (kind == kOptionTimestamp) {
      if (option_length != kTimestampOptionLength) return false;
      header.timestamps = true;
      header.timestamp_value = load_be32(options + at + 2);
      header.timestamp_echo_reply = load_be32(options + at + 6);
    }
    at += option_length;
  }
  return true;
}

}  // namespace

void TcpHeader::encode(std::uint8_t* out) const {
  store_be16(source_port, out);
  store_be16(destination_port, out + 2);
  store_be32(sequence, out + 4);
  store_be32(acknowledgment, out + 8);
  out[12] = static_cast<std::uint8_t>(((size() / 4) << 4) | (reserved & 0xF));
  out[13] = static_cast<std::uint8_t>(bit(cwr, 7) | bit(ece, 6) | bit(urg, 5) | bit(ack, 4) |
                                      bit(psh, 3) | bit(rst, 2) | bit(syn, 1) | bit(fin, 0));
  store_be16(window, out + 14);
  store_be16(checksum, out + kChecksumOffset);
  store_be16(urgent_pointer, out + 18);
  if (timestamps) {
    std::uint8_t* option = out + kSize;
    option[0] = kOptionNop;
    option[1] = kOptionNop;
    option[2] = kOptionTimestamp;
    option[3] = kTimestampOptionLength;
    store_be32(timestamp_value, option + 4);
    store_be32(timestamp_echo_reply, option + 8);
  }
}

std::optional<TcpHeader> TcpHeader::decode(const std::uint8_t* in, std::size_t length) {
  if (length < kSize) return std::nullopt;
  const std::size_t header_length = data_offset_bytes(in);
  if (header_length < kSize || header_length > length) return std::nullopt;
  TcpHeader header;
  header.source_port = load_be16(in);
  header.destination_port = load_be16(in + 2);
  header.sequence = load_be32(in + 4);
  header.acknowledgment = load_be32(in + 8);
  header.reserved = static_cast<std::uint8_t>(in[12] & 0xF);
  header.cwr = (in[13] & 0x80) != 0;
  header.ece = (in[13] & 0x40) != 0;
  header.urg = (in[13] & 0x20) != 0;
  header.ack = (in[13] & 0x10) != 0;
  header.psh = (in[13] & 0x08) != 0;
  header.rst = (in[13] & 0x04) != 0;
  header.syn = (in[13] & 0x02) != 0;
  header.fin = (in[13] & 0x01) != 0;
  header.window = load_be16(in + 14);
  header.checksum = load_be16(in + kChecksumOffset);
  header.urgent_pointer = load_be16(in + 18);
  if (!decode_options(in + kSize, header_length - kSize, header)) return std::nullopt;
  return header;
}

bool TcpHeader::operator==(const TcpHeader& other) const {
  return std::tie(source_port, destination_port, sequence, acknowledgment, reserved, cwr, ece, urg,
                  ack, psh, rst, syn, fin, window, checksum, urgent_pointer, timestamps,
                  timestamp_value, timestamp_echo_reply) ==
         std::tie(other.source_port, other.destination_port, other.sequence, other.acknowledgment,
                  other.reserved, other.cwr, other.ece, other.urg, other.ack, other.psh, other.rst,
                  other.syn, other.fin, other.window, other.checksum, other.urgent_pointer,
                  other.timestamps, other.timestamp_value, other.timestamp_echo_reply);
}

std::uint16_t tcp_checksum(std::uint32_t source, std::uint32_t destination,
                           const std::uint8_t* segment, std::size_t length) {
  // Summing around the checksum field is the same as summing it as zero.
  constexpr std::size_t kAfter = TcpHeader::kChecksumOffset + 2;
  std::uint32_t sum = pseudo_header_sum(source, destination, length);
  sum = ones_complement_sum(segment, TcpHeader::kChecksumOffset, sum);
  sum = ones_complement_sum(segment + kAfter, length - kAfter, sum);
  return static_cast<std::uint16_t>(~sum);
}

bool tcp_checksum_ok(std::uint32_t source, std::uint32_t destination, const std::uint8_t* segment,
                     std::size_t length) {
  if (length < TcpHeader::kSize) return false;
  const std::uint32_t sum =
      ones_complement_sum(segment, length, pseudo_header_sum(source, destination, length));
  return sum == 0xFFFF;
}

std::vector<std::uint8_t> build_tcp_frame(const TcpFrame& headers, const std::uint8_t* payload,
                                          std::size_t length, bool checksum_offload) {
  EthernetHeader ethernet = headers.ethernet;
  ethernet.ether_type = kEtherTypeIpv4;
  const std::size_t ip_offset = ethernet.size();
  const std::size_t tcp_offset = ip_offset + Ipv4Header::kSize;
  const std::size_t payload_offset = tcp_offset + headers.tcp.size();
  const std::size_t ip_total_length = payload_offset + length - ip_offset;
  if (ip_total_length > kMaxIpv4TotalLength) {
    throw std::invalid_argument("build_tcp_frame: IPv4 packet of " +
                                std::to_string(ip_total_length) + " bytes exceeds 65535");
  }

  std::vector<std::uint8_t> frame(std::max(payload_offset + length, kEthernetMinimumFrameSize), 0);
  ethernet.encode(frame.data());

  Ipv4Header ip = headers.ip;
  ip.protocol = kIpProtocolTcp;
  ip.total_length = static_cast<std::uint16_t>(ip_total_length);
  ip.checksum = 0;
  ip.encode(frame.data() + ip_offset);
  store_be16(ipv4_header_checksum(frame.data() + ip_offset, Ipv4Header::kSize),
             frame.data() + ip_offset + 10);

  TcpHeader tcp = headers.tcp;
  tcp.checksum = 0;
  tcp.encode(frame.data() + tcp_offset);
  if (length > 0) std::copy(payload, payload + length, frame.begin() + payload_offset);
  if (!checksum_offload) {
    const std::size_t segment_length = ip_total_length - Ipv4Header::kSize;
    store_be16(tcp_checksum(ip.source, ip.destination, frame.data() + tcp_offset, segment_length),
               frame.data() + tcp_offset + TcpHeader::kChecksumOffset);
  }
  return frame;
}

std::optional<TcpFrame> parse_tcp_frame(const std::uint8_t* frame, std::size_t length) {
  TcpFrame parsed;
  const std::optional<EthernetHeader> ethernet = EthernetHeader::decode(frame, length);
  if (!ethernet || ethernet->ether_type != kEtherTypeIpv4) return std::nullopt;
  parsed.ethernet = *ethernet;

  parsed.ip_offset = ethernet->size();
  if (length < parsed.ip_offset + kIpv4MinimumHeaderSize) return std::nullopt;
  const std::uint8_t* ip = frame + parsed.ip_offset;
  const std::size_t ip_header_length = (ip[0] & 0xFu) * 4u;
  if ((ip[0] >> 4) != 4 || ip_header_length < kIpv4MinimumHeaderSize) return std::nullopt;
  parsed.ip = Ipv4Header::decode(ip);
  const std::size_t ip_total_length = parsed.ip.total_length;
  if (ip_total_length < ip_header_length || parsed.ip_offset + ip_total_length > length) {
    return std::nullopt;
  }
  const bool fragment =
      (parsed.ip.flags_fragment & (kIpv4MoreFragments | kIpv4FragmentOffsetMask)) != 0;
  if (fragment || parsed.ip.protocol != kIpProtocolTcp) return std::nullopt;

  parsed.tcp_offset = parsed.ip_offset + ip_header_length;
  const std::size_t segment_length = ip_total_length - ip_header_length;
  const std::optional<TcpHeader> tcp = TcpHeader::decode(frame + parsed.tcp_offset, segment_length);
  if (!tcp) return std::nullopt;
  parsed.tcp = *tcp;
  const std::size_t tcp_header_length = TcpHeader::data_offset_bytes(frame + parsed.tcp_offset);
  parsed.payload_offset = parsed.tcp_offset + tcp_header_length;
  parsed.payload_length = segment_length - tcp_header_length;
  return parsed;
}

}  // namespace rnicsim::packet
