#pragma once
// RoCEv2 Invariant CRC, as the IBTA RoCEv2 annex defines it and Linux rxe computes it
// (rxe_icrc.c):
// zlib CRC-32 over 8 x 0xFF (the masked IB LRH) followed by the packet from
// the IP header through the pad, with the variant fields set to ones: IPv4
// TOS, TTL and header checksum (or IPv6 traffic class, flow label and hop
// limit), the UDP checksum and BTH byte 4. Sent little-endian after the pad.
//
// The masks are one 128-byte pattern per IP header layout, ORed over the
// packet's start as the CRC reads it (the variant fields lie in the first 80
// bytes), so the cost is one pass over the packet. Only packets shorter than
// the pattern, and all packets on a processor without the CRC fold, are
// masked in a copy (of at most 128 bytes).
#include <array>
#include <cstddef>
#include <cstdint>

#include "formats/crc32.hpp"

namespace rnicsim::packet {

// ICRC of a packet whose IP header starts at `ip_packet`; `length` runs to the
// end of the pad (the ICRC itself excluded). The IP version and, for IPv4,
// the header length are read from the first byte. Throws std::invalid_argument
// when that is not IPv4 (IHL >= 5) or IPv6, or when `length` does not hold
// the IP, UDP and BTH headers.
std::uint32_t compute_icrc(const std::uint8_t* ip_packet, std::size_t length);

// The mask compute_icrc ORs over the first kCrc32MaskBytes bytes of the packet
// at `ip_packet`: ones over its variant fields, zero over what the ICRC
// covers as it is. Throws std::invalid_argument as compute_icrc does for a
// packet that is not IPv4 or IPv6.
using IcrcVariantFieldMask = std::array<std::uint8_t, kCrc32MaskBytes>;
const IcrcVariantFieldMask& icrc_variant_field_mask(const std::uint8_t* ip_packet);

// The ICRC travels least significant byte first, like an Ethernet FCS.
std::uint32_t load_icrc(const std::uint8_t* wire);
void store_icrc(std::uint32_t icrc, std::uint8_t* wire);

}  // namespace rnicsim::packet
