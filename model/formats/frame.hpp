#pragma once
// Whole RoCEv2 frames: Ethernet (optionally one 802.1Q tag), IPv4 or IPv6,
// UDP to port 4791, BTH, the opcode's extended headers, payload, pad, ICRC.
// No Ethernet FCS, as in the captures (testbench/data/roce).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <variant>
#include <vector>

#include "formats/headers.hpp"

namespace rnicsim::packet {

struct RocePacket {
  EthernetHeader ethernet;
  std::variant<Ipv4Header, Ipv6Header> ip;
  UdpHeader udp;
  Bth bth;
  // Present exactly when the opcode carries them (OpcodeInfo::headers).
  std::optional<Reth> reth;
  std::optional<Aeth> aeth;
  std::optional<AtomicEth> atomic_eth;
  std::optional<AtomicAckEth> atomic_ack_eth;
  std::optional<ImmDt> imm_dt;
  std::optional<Ieth> ieth;
  std::optional<Deth> deth;
  // Where the payload lies in the parsed frame, pad excluded. Set by
  // parse_frame; build_frame takes the payload as arguments instead.
  std::size_t payload_offset = 0;
  std::size_t payload_length = 0;

  bool is_ipv6() const { return std::holds_alternative<Ipv6Header>(ip); }
};

// One value per receive check, in the order parse_frame applies them; the
// first failing check is reported. A field that lies beyond the bytes a
// length check admits fails that length check: an IP header cut short by the
// frame end is kIpLength, a UDP header cut short by the IP length kUdpLength.
enum class ParseError : std::uint8_t {
  kTruncatedEthernet,     // frame shorter than the Ethernet header (and its tag)
  kUnsupportedEtherType,  // not IPv4 or IPv6 after at most one 802.1Q tag
  kIpVersion,             // version field disagrees with the EtherType
  kIpv4Checksum,          // IPv4 header checksum wrong
  kIpLength,              // IHL < 5, or IP header / total / payload length beyond the frame
  kIpv4Fragment,          // more-fragments flag or a fragment offset: RoCEv2 senders set DF,
                          // and a NIC does not reassemble
  kNotUdp,                // IPv4 protocol or IPv6 next header is not UDP
  kUdpPort,               // destination port is not 4791
  kUdpLength,             // UDP length != IP payload length, or too short for BTH + ICRC
  kBthVersion,            // TVer != 0
  kUnsupportedOpcode,     // find_opcode() knows no such opcode
  kHeaderLength,          // packet too short for the opcode's extended headers + ICRC
  kPad,                   // pad count larger than the data, on an opcode without payload,
                          // or payload + pad not a multiple of 4
  kPayloadLength,         // payload length illegal for the opcode (PayloadRule)
  kIcrcMismatch,          // received ICRC differs from the computed one
};

inline constexpr std::size_t kParseErrorCount =
    static_cast<std::size_t>(ParseError::kIcrcMismatch) + 1;

const char* to_string(ParseError error);

// Whether parse_frame checks the ICRC and build_frame fills it, or leaves
// that to the ICRC blocks (icrc_blocks.hpp), as the NIC's datapath does.
enum class IcrcHandling : std::uint8_t { kCompute, kSkip };

struct ParseResult {
  std::optional<ParseError> error;  // nullopt: a valid RoCEv2 packet
  // Headers decoded before the failing check; all of them on success and on
  // kIcrcMismatch.
  RocePacket packet;
  // Set once the ICRC has been checked, that is on success and kIcrcMismatch
  // (never with IcrcHandling::kSkip).
  std::uint32_t icrc_received = 0;
  std::uint32_t icrc_computed = 0;
  bool icrc_ok = false;

  bool ok() const { return !error.has_value(); }
};

// Never reads outside [frame, frame + length). The frame may be longer than
// the IP packet (Ethernet minimum-size padding): the IP total / payload length
// locates the ICRC. Reserved BTH bits are accepted as they are. With
// IcrcHandling::kSkip every check but the ICRC is made.
ParseResult parse_frame(const std::uint8_t* frame, std::size_t length,
                        IcrcHandling icrc = IcrcHandling::kCompute);

// Writes the headers in the opcode's order, then `length` payload bytes, zero
// pad to a multiple of 4, and the ICRC. Computes and overrides the EtherType
// (from `ip`), IP total / payload length and UDP length (both counting the
// ICRC), IPv4 header checksum, UDP checksum (0) and BTH pad count; every other
// field is written as given. With IcrcHandling::kSkip the ICRC field stays
// zero. Throws std::invalid_argument for an unsupported opcode, extended
// headers that do not match the opcode, or a payload length the opcode does
// not allow.
std::vector<std::uint8_t> build_frame(const RocePacket& headers, const std::uint8_t* payload,
                                      std::size_t length,
                                      IcrcHandling icrc = IcrcHandling::kCompute);
// The length build_frame gives those headers and `length` payload bytes
// (no FCS, no Ethernet minimum padding); the opcode must be supported.
std::size_t frame_size(const RocePacket& headers, std::size_t length);
// The same into `frame`, whose old contents are replaced and whose capacity
// is kept: a reused buffer costs no allocation per frame.
void build_frame_into(std::vector<std::uint8_t>& frame, const RocePacket& headers,
                      const std::uint8_t* payload, std::size_t length, IcrcHandling icrc);

// Where an ICRC engine finds a frame's ICRC: the IP header starts at
// `ip_offset` and the ICRC field at `icrc_offset` (the ICRC covers the bytes
// between them). Read from the Ethernet (and 802.1Q), IP and UDP headers
// alone: EtherType IPv4 or IPv6 with the matching IP version, UDP to port
// 4791, lengths that hold together within the frame and room for the BTH.
struct IcrcLocation {
  std::size_t ip_offset = 0;
  std::size_t icrc_offset = 0;
};
// nullopt for a frame that is not RoCEv2 by those headers or whose lengths do
// not hold together (the parser then reports why).
std::optional<IcrcLocation> locate_icrc(const std::uint8_t* frame, std::size_t length);

}  // namespace rnicsim::packet
