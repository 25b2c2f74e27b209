#include "packet/icrc.hpp"

#include <isa-l/crc.h>

#include <array>
#include <cstring>
#include <stdexcept>

#include "packet/headers.hpp"

namespace rnicsim::packet {

namespace {

constexpr std::size_t kIpv4MaxHeaderSize = 60;
constexpr std::size_t kMaskedMaxSize = kIpv4MaxHeaderSize + UdpHeader::kSize + Bth::kSize;
constexpr std::size_t kUdpChecksumOffset = 6;
constexpr std::size_t kBthVariantByte = 4;

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

}  // namespace

std::uint32_t crc32(const std::uint8_t* data, std::size_t length, std::uint32_t crc) {
  // ISA-L's gzip variant has zlib's conventions (pre/post inversion inside),
  // so results chain like zlib's.
  return crc32_gzip_refl(crc, data, length);
}

std::uint32_t compute_icrc(const std::uint8_t* ip_packet, std::size_t length) {
  if (length == 0) throw std::invalid_argument("ICRC: empty packet");
  std::array<std::uint8_t, kMaskedMaxSize> masked;
  const unsigned version = ip_packet[0] >> 4u;
  std::size_t ip_size = 0;
  switch (version) {
    case 4:
      ip_size = std::size_t{ip_packet[0] & 0xFu} * 4;
      if (ip_size < Ipv4Header::kSize) throw std::invalid_argument("ICRC: IPv4 IHL < 5");
      break;
    case 6:
      ip_size = Ipv6Header::kSize;
      break;
    default:
      throw std::invalid_argument("ICRC: not an IPv4 or IPv6 packet");
  }
  const std::size_t masked_size = ip_size + UdpHeader::kSize + Bth::kSize;
  if (length < masked_size) throw std::invalid_argument("ICRC: packet shorter than its headers");

  std::memcpy(masked.data(), ip_packet, masked_size);
  if (version == 6) {
    masked[0] |= 0x0F;                         // traffic class, high nibble
    masked[1] = masked[2] = masked[3] = 0xFF;  // traffic class low nibble, flow label
    masked[7] = 0xFF;                          // hop limit
  } else {
    masked[1] = 0xFF;                // TOS
    masked[8] = 0xFF;                // TTL
    masked[10] = masked[11] = 0xFF;  // header checksum
  }
  masked[ip_size + kUdpChecksumOffset] = 0xFF;
  masked[ip_size + kUdpChecksumOffset + 1] = 0xFF;
  masked[ip_size + UdpHeader::kSize + kBthVariantByte] = 0xFF;

  const std::uint32_t crc = crc32(masked.data(), masked_size, lrh_prefix_crc());
  return crc32(ip_packet + masked_size, length - masked_size, crc);
}

std::uint32_t load_icrc(const std::uint8_t* wire) {
  return std::uint32_t{wire[0]} | (std::uint32_t{wire[1]} << 8) | (std::uint32_t{wire[2]} << 16) |
         (std::uint32_t{wire[3]} << 24);
}

void store_icrc(std::uint32_t icrc, std::uint8_t* wire) {
  for (int i = 0; i < 4; ++i) wire[i] = static_cast<std::uint8_t>(icrc >> (8 * i));
}

}  // namespace rnicsim::packet
