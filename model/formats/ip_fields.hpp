#pragma once
// The few fields of an Ethernet frame that a switch and a MAC look at, read
// and changed in place in the frame's bytes: the 802.1Q priority (PCP), the
// IPv4 DSCP and ECN bits, the flow's 5-tuple, and what an IP router rewrites
// when it forwards (MAC addresses, TTL, header checksum). The RoCEv2 ICRC
// masks TOS, TTL and the IPv4 checksum, so neither forwarding nor a CE mark
// invalidates it.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "formats/headers.hpp"

namespace rnicsim::packet {

// RFC 3168's codepoints in the low two bits of the IPv4 TOS byte.
enum class Ecn : std::uint8_t { kNotEct = 0, kEct1 = 1, kEct0 = 2, kCe = 3 };

struct FiveTuple {
  std::uint32_t source = 0;
  std::uint32_t destination = 0;
  std::uint8_t protocol = 0;
  std::uint16_t source_port = 0;  // UDP and TCP; 0 for other protocols
  std::uint16_t destination_port = 0;
};

// Where an untagged or single-tagged frame's IPv4 header starts; nullopt when
// the frame carries no IPv4 header of at least 20 bytes.
std::optional<std::size_t> ipv4_offset(const std::uint8_t* frame, std::size_t length);

// The PCP of an 802.1Q-tagged frame; nullopt when untagged.
std::optional<std::uint8_t> vlan_priority(const std::uint8_t* frame, std::size_t length);

std::uint8_t ipv4_dscp(const std::uint8_t* frame, std::size_t ip_offset);

// The priority (and traffic class) of a frame: its PCP when tagged, else
// `dscp_classes` of its IPv4 DSCP (`ip_offset`, from ipv4_offset), else 0.
using DscpClasses = std::array<std::uint8_t, 64>;
std::uint8_t frame_priority(const std::uint8_t* frame, std::size_t length,
                            std::optional<std::size_t> ip_offset, const DscpClasses& dscp_classes);
Ecn ipv4_ecn(const std::uint8_t* frame, std::size_t ip_offset);
std::uint32_t ipv4_destination(const std::uint8_t* frame, std::size_t ip_offset);
FiveTuple five_tuple(const std::uint8_t* frame, std::size_t length, std::size_t ip_offset);

// What a router does to a frame it forwards: new MAC addresses, TTL one
// less, the header checksum recomputed. The caller checks the TTL first.
std::uint8_t ipv4_ttl(const std::uint8_t* frame, std::size_t ip_offset);
void forward_ipv4(std::uint8_t* frame, std::size_t ip_offset, const MacAddress& source,
                  const MacAddress& destination);

// Marks an ECN-capable frame Congestion Experienced (and fixes the checksum);
// false, and the frame unchanged, when it is not ECN-capable.
bool mark_congestion_experienced(std::uint8_t* frame, std::size_t ip_offset);

}  // namespace rnicsim::packet
