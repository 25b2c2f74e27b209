#pragma once
// TCP over IPv4 in Ethernet II, for the kernel path's frames: the TCP header
// (RFC 9293, formerly RFC 793) with the one option Linux puts on every data
// segment of an established connection, the timestamp option (RFC 7323), laid
// out as Linux sends it: NOP, NOP, kind 8, length 10, TSval, TSecr (12 bytes,
// so the header stays a multiple of 4). The Ethernet and IPv4 headers are the
// ones of headers.hpp.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "formats/headers.hpp"

namespace rnicsim::packet {

constexpr std::uint8_t kIpProtocolTcp = 6;
// The shortest Ethernet frame without its 4-byte FCS; a shorter one is padded
// with zeros by the sender (IEEE 802.3 minimum frame of 64 bytes).
constexpr std::size_t kEthernetMinimumFrameSize = 60;

struct TcpHeader {
  static constexpr std::size_t kSize = 20;
  static constexpr std::size_t kTimestampOptionSize = 12;  // NOP NOP kind len TSval TSecr
  static constexpr std::size_t kMaxSize = 60;              // data offset 15 words
  static constexpr std::size_t kChecksumOffset = 16;

  std::uint16_t source_port = 0;
  std::uint16_t destination_port = 0;
  std::uint32_t sequence = 0;
  std::uint32_t acknowledgment = 0;
  std::uint8_t reserved = 0;  // 4 bits; kept so that a received header re-encodes unchanged
  bool cwr = false;
  bool ece = false;
  bool urg = false;
  bool ack = true;  // set on every segment after the SYN
  bool psh = false;
  bool rst = false;
  bool syn = false;
  bool fin = false;
  std::uint16_t window = 0;  // the field as sent: bytes >> the receiver's window scale
  std::uint16_t checksum = 0;
  std::uint16_t urgent_pointer = 0;
  bool timestamps = false;  // carries the timestamp option
  std::uint32_t timestamp_value = 0;
  std::uint32_t timestamp_echo_reply = 0;

  // 20, or 32 with the timestamp option.
  std::size_t size() const { return kSize + (timestamps ? kTimestampOptionSize : 0); }
  // Writes size() bytes; the data offset is size() / 4.
  void encode(std::uint8_t* out) const;
  // nullopt when `length` bytes do not hold the header its data offset gives,
  // or its options are malformed (an option running past the header, a
  // length below 2). The timestamp option is read wherever it sits among the
  // options; the others (MSS, SACK, ...) are skipped and not kept, so such a
  // header re-encodes shorter. The payload starts at data_offset(in) * 4.
  static std::optional<TcpHeader> decode(const std::uint8_t* in, std::size_t length);
  // The header length the data offset field of an encoded header gives, in bytes.
  static std::size_t data_offset_bytes(const std::uint8_t* in) { return (in[12] >> 4) * 4u; }
  bool operator==(const TcpHeader& other) const;
};

// The RFC 793 / RFC 1071 checksum a TCP segment (header and payload, `length`
// bytes, at least TcpHeader::kSize) should carry: the one's complement of the one's-complement sum
// of the IPv4 pseudo-header (source, destination, zero, protocol 6, TCP length) and the segment,
// its own checksum field counted as zero.
std::uint16_t tcp_checksum(std::uint32_t source, std::uint32_t destination,
                           const std::uint8_t* segment, std::size_t length);
// True when the segment's checksum field matches its contents.
bool tcp_checksum_ok(std::uint32_t source, std::uint32_t destination, const std::uint8_t* segment,
                     std::size_t length);

// A TCP/IPv4 frame's headers; parse_tcp_frame also says where the payload lies.
struct TcpFrame {
  EthernetHeader ethernet;
  Ipv4Header ip;
  TcpHeader tcp;
  // Set by parse_tcp_frame; build_tcp_frame takes the payload as arguments.
  std::size_t ip_offset = 0;  // where the IPv4 header starts (after an 802.1Q tag: 18)
  std::size_t tcp_offset = 0;
  std::size_t payload_offset = 0;
  std::size_t payload_length = 0;
};

// Ethernet II, IPv4, TCP (and its options), `length` payload bytes, then zeros
// up to kEthernetMinimumFrameSize. Computes and overrides the EtherType (IPv4),
// the IPv4 protocol (6), total length and header checksum, and the TCP
// checksum; with `checksum_offload` the TCP checksum field stays zero for the
// NIC to fill (insert_tcp_checksum in tso.hpp). Every other field is written as
// given: Ipv4Header's defaults are DF set and TTL 64, as Linux sends TCP; the
// IP identification is the caller's. Throws std::invalid_argument when the IP
// packet would exceed 65535 bytes.
std::vector<std::uint8_t> build_tcp_frame(const TcpFrame& headers, const std::uint8_t* payload,
                                          std::size_t length, bool checksum_offload = false);

// The headers of an Ethernet II (at most one 802.1Q tag) / IPv4 / TCP frame,
// or nullopt for anything else: another EtherType or protocol, IP version
// not 4, IHL below 5, an IPv4 fragment, or lengths that do not hold together
// (IP total length beyond the frame or below its header, TCP data offset
// below 5 or beyond the IP packet, malformed TCP options). The IP total
// length, not the frame length, bounds the payload, so Ethernet padding is
// ignored. IPv4 options are skipped. Checksums are not checked here
// (tcp_frame_checksum_ok does). Never reads outside [frame, frame + length).
std::optional<TcpFrame> parse_tcp_frame(const std::uint8_t* frame, std::size_t length);

}  // namespace rnicsim::packet
