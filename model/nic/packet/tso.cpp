#include "nic/packet/tso.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>

#include "formats/headers.hpp"
#include "formats/tcp_header.hpp"

namespace rnicsim::packet {

namespace {

constexpr std::size_t kIpv4TotalLengthOffset = 2;
constexpr std::size_t kIpv4IdentificationOffset = 4;
constexpr std::size_t kIpv4ChecksumOffset = 10;
constexpr std::size_t kTcpSequenceOffset = 4;
constexpr std::size_t kTcpFlagsOffset = 13;
constexpr std::uint8_t kTcpFlagFin = 0x01;
constexpr std::uint8_t kTcpFlagPsh = 0x08;
constexpr std::uint8_t kTcpFlagCwr = 0x80;

TcpFrame parse_or_throw(const std::uint8_t* frame, std::size_t length, const char* who) {
  std::optional<TcpFrame> parsed = parse_tcp_frame(frame, length);
  if (!parsed) throw std::invalid_argument(std::string(who) + ": not an Ethernet/IPv4/TCP frame");
  return *parsed;
}

std::size_t ip_header_length(const TcpFrame& parsed) {
  return parsed.tcp_offset - parsed.ip_offset;
}

// Recomputes the IPv4 header checksum and the TCP checksum of a frame whose
// lengths are already right.
void refresh_checksums(std::vector<std::uint8_t>& frame, const TcpFrame& parsed,
                       std::size_t ip_total_length) {
  std::uint8_t* ip = frame.data() + parsed.ip_offset;
  store_be16(ipv4_header_checksum(ip, ip_header_length(parsed)), ip + kIpv4ChecksumOffset);
  std::uint8_t* tcp = frame.data() + parsed.tcp_offset;
  const std::size_t segment_length = ip_total_length - ip_header_length(parsed);
  store_be16(tcp_checksum(parsed.ip.source, parsed.ip.destination, tcp, segment_length),
             tcp + TcpHeader::kChecksumOffset);
}

}  // namespace

std::vector<std::vector<std::uint8_t>> segment_tcp(const std::uint8_t* frame, std::size_t length,
                                                   std::uint32_t mss) {
  if (mss == 0) throw std::invalid_argument("segment_tcp: mss 0");
  const TcpFrame parsed = parse_or_throw(frame, length, "segment_tcp");
  const std::size_t headers_length = parsed.payload_offset;
  const std::size_t ip_headers_length = parsed.payload_offset - parsed.ip_offset;
  const std::size_t segment_count =
      std::max<std::size_t>(1, (parsed.payload_length + mss - 1) / mss);

  std::vector<std::vector<std::uint8_t>> segments;
  segments.reserve(segment_count);
  for (std::size_t index = 0; index < segment_count; ++index) {
    const std::size_t offset = index * mss;
    const std::size_t payload_length = std::min<std::size_t>(mss, parsed.payload_length - offset);
    std::vector<std::uint8_t> segment(
        std::max(headers_length + payload_length, kEthernetMinimumFrameSize), 0);
    std::copy(frame, frame + headers_length, segment.begin());
    const std::uint8_t* payload = frame + parsed.payload_offset + offset;
    std::copy(payload, payload + payload_length, segment.begin() + headers_length);

    std::uint8_t* ip = segment.data() + parsed.ip_offset;
    const std::size_t ip_total_length = ip_headers_length + payload_length;
    store_be16(static_cast<std::uint16_t>(ip_total_length), ip + kIpv4TotalLengthOffset);
    store_be16(static_cast<std::uint16_t>(parsed.ip.identification + index),
               ip + kIpv4IdentificationOffset);

    std::uint8_t* tcp = segment.data() + parsed.tcp_offset;
    store_be32(static_cast<std::uint32_t>(parsed.tcp.sequence + offset), tcp + kTcpSequenceOffset);
    const bool first = index == 0;
    const bool last = index + 1 == segment_count;
    std::uint8_t flags = tcp[kTcpFlagsOffset];
    if (!last) flags &= static_cast<std::uint8_t>(~(kTcpFlagFin | kTcpFlagPsh));
    if (!first) flags &= static_cast<std::uint8_t>(~kTcpFlagCwr);
    tcp[kTcpFlagsOffset] = flags;

    refresh_checksums(segment, parsed, ip_total_length);
    segments.push_back(std::move(segment));
  }
  return segments;
}

void insert_tcp_checksum(std::vector<std::uint8_t>& frame) {
  const TcpFrame parsed = parse_or_throw(frame.data(), frame.size(), "insert_tcp_checksum");
  std::uint8_t* tcp = frame.data() + parsed.tcp_offset;
  const std::size_t segment_length = parsed.ip.total_length - ip_header_length(parsed);
  store_be16(tcp_checksum(parsed.ip.source, parsed.ip.destination, tcp, segment_length),
             tcp + TcpHeader::kChecksumOffset);
}

bool tcp_frame_checksum_ok(const std::uint8_t* frame, std::size_t length) {
  const std::optional<TcpFrame> parsed = parse_tcp_frame(frame, length);
  if (!parsed) return false;
  const std::size_t ip_length = ip_header_length(*parsed);
  return ipv4_header_checksum_ok(frame + parsed->ip_offset, ip_length) &&
         tcp_checksum_ok(parsed->ip.source, parsed->ip.destination, frame + parsed->tcp_offset,
                         parsed->ip.total_length - ip_length);
}

}  // namespace rnicsim::packet
