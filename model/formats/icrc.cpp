#include "formats/icrc.hpp"

#include <array>
#include <cstring>
#include <stdexcept>

#include "formats/crc32.hpp"
#include "formats/headers.hpp"

namespace rnicsim::packet {

namespace {

constexpr std::size_t kIpv4MaxHeaderSize = 60;
constexpr std::size_t kUdpChecksumOffset = 6;
constexpr std::size_t kBthVariantByte = 4;
static_assert(kIpv4MaxHeaderSize + UdpHeader::kSize + Bth::kSize <= kCrc32MaskBytes,
              "the variant fields lie within the CRC's masked head");

// CRC state after the 8 x 0xFF that stand for the masked LRH; the same for
// every packet, so it is computed once (rxe hard-codes the raw state).
std::uint32_t lrh_prefix_crc() {
  static const std::uint32_t crc = [] {
    std::array<std::uint8_t, 8> prefix;
    prefix.fill(0xFF);
    return crc32(prefix.data(), prefix.size());
  }();
  return crc;
}

using VariantFieldMask = IcrcVariantFieldMask;

// Ones over the variant fields of a packet whose IP header is `ip_size`
// bytes; the ICRC ORs it over the packet's start.
VariantFieldMask make_variant_field_mask(unsigned version, std::size_t ip_size) {
  VariantFieldMask mask{};
  if (version == 6) {
    mask[0] = 0x0F;                      // traffic class, high nibble
    mask[1] = mask[2] = mask[3] = 0xFF;  // traffic class low nibble, flow label
    mask[7] = 0xFF;                      // hop limit
  } else {
    mask[1] = 0xFF;              // TOS
    mask[8] = 0xFF;              // TTL
    mask[10] = mask[11] = 0xFF;  // header checksum
  }
  mask[ip_size + kUdpChecksumOffset] = 0xFF;
  mask[ip_size + kUdpChecksumOffset + 1] = 0xFF;
  mask[ip_size + UdpHeader::kSize + kBthVariantByte] = 0xFF;
  return mask;
}

// One mask per header layout: IPv4 with IHL 5..15, then IPv6.
const VariantFieldMask& variant_field_mask(unsigned version, std::size_t ip_size) {
  constexpr std::size_t kIpv4Layouts = 11;
  static const std::array<VariantFieldMask, kIpv4Layouts + 1> masks = [] {
    std::array<VariantFieldMask, kIpv4Layouts + 1> all{};
    for (std::size_t ihl = 5; ihl <= 15; ++ihl) all[ihl - 5] = make_variant_field_mask(4, 4 * ihl);
    all[kIpv4Layouts] = make_variant_field_mask(6, Ipv6Header::kSize);
    return all;
  }();
  return version == 6 ? masks[kIpv4Layouts] : masks[ip_size / 4 - 5];
}

// The IP header's size, from its first byte.
std::size_t ip_header_size(unsigned version, std::uint8_t first_byte) {
  switch (version) {
    case 4: {
      const std::size_t size = std::size_t{first_byte & 0xFu} * 4;
      if (size < Ipv4Header::kSize) throw std::invalid_argument("ICRC: IPv4 IHL < 5");
      return size;
    }
    case 6:
      return Ipv6Header::kSize;
    default:
      throw std::invalid_argument("ICRC: not an IPv4 or IPv6 packet");
  }
}

}  // namespace

const IcrcVariantFieldMask& icrc_variant_field_mask(const std::uint8_t* ip_packet) {
  const unsigned version = ip_packet[0] >> 4u;
  return variant_field_mask(version, ip_header_size(version, ip_packet[0]));
}

std::uint32_t compute_icrc(const std::uint8_t* ip_packet, std::size_t length) {
  if (length == 0) throw std::invalid_argument("ICRC: empty packet");
  const unsigned version = ip_packet[0] >> 4u;
  const std::size_t ip_size = ip_header_size(version, ip_packet[0]);
  const std::size_t masked_size = ip_size + UdpHeader::kSize + Bth::kSize;
  if (length < masked_size) throw std::invalid_argument("ICRC: packet shorter than its headers");

  const VariantFieldMask& mask = variant_field_mask(version, ip_size);
  if (length >= mask.size())
    return crc32_or_masked(ip_packet, length, mask.data(), lrh_prefix_crc());
  // A short packet is masked in a copy.
  std::array<std::uint8_t, kCrc32MaskBytes> masked;
  for (std::size_t i = 0; i < length; ++i) masked[i] = ip_packet[i] | mask[i];
  return crc32(masked.data(), length, lrh_prefix_crc());
}

std::uint32_t load_icrc(const std::uint8_t* wire) {
  return std::uint32_t{wire[0]} | (std::uint32_t{wire[1]} << 8) | (std::uint32_t{wire[2]} << 16) |
         (std::uint32_t{wire[3]} << 24);
}

void store_icrc(std::uint32_t icrc, std::uint8_t* wire) {
  for (int i = 0; i < 4; ++i) wire[i] = static_cast<std::uint8_t>(icrc >> (8 * i));
}

}  // namespace rnicsim::packet
