#include "formats/ip_fields.hpp"

#include <algorithm>

namespace rnicsim::packet {

namespace {

constexpr std::size_t kEtherTypeOffset = 12;

void refresh_checksum(std::uint8_t* ip, std::size_t header_bytes) {
  store_be16(ipv4_header_checksum(ip, header_bytes), ip + 10);
}

std::size_t header_bytes(const std::uint8_t* ip) { return 4u * (ip[0] & 0x0F); }

}  // namespace

std::optional<std::size_t> ipv4_offset(const std::uint8_t* frame, std::size_t length) {
  if (length < EthernetHeader::kSize) return std::nullopt;
  std::size_t offset = EthernetHeader::kSize;
  std::uint16_t type = load_be16(frame + kEtherTypeOffset);
  if (type == kEtherTypeVlan) {
    if (length < offset + EthernetHeader::kVlanTagSize) return std::nullopt;
    type = load_be16(frame + kEtherTypeOffset + EthernetHeader::kVlanTagSize);
    offset += EthernetHeader::kVlanTagSize;
  }
  if (type != kEtherTypeIpv4 || length < offset + Ipv4Header::kSize) return std::nullopt;
  if ((frame[offset] >> 4) != 4 || header_bytes(frame + offset) < Ipv4Header::kSize ||
      length < offset + header_bytes(frame + offset)) {
    return std::nullopt;
  }
  return offset;
}

std::optional<std::uint8_t> vlan_priority(const std::uint8_t* frame, std::size_t length) {
  if (length < EthernetHeader::kSize + EthernetHeader::kVlanTagSize ||
      load_be16(frame + kEtherTypeOffset) != kEtherTypeVlan) {
    return std::nullopt;
  }
  return static_cast<std::uint8_t>(frame[kEtherTypeOffset + 2] >> 5);
}

std::uint8_t ipv4_dscp(const std::uint8_t* frame, std::size_t ip_offset) {
  return static_cast<std::uint8_t>(frame[ip_offset + 1] >> 2);
}

std::uint8_t frame_priority(const std::uint8_t* frame, std::size_t length,
                            std::optional<std::size_t> ip_offset, const DscpClasses& dscp_classes) {
  if (const auto pcp = vlan_priority(frame, length)) return *pcp;
  return ip_offset ? dscp_classes[ipv4_dscp(frame, *ip_offset)] : 0;
}

Ecn ipv4_ecn(const std::uint8_t* frame, std::size_t ip_offset) {
  return static_cast<Ecn>(frame[ip_offset + 1] & 0x03);
}

std::uint32_t ipv4_destination(const std::uint8_t* frame, std::size_t ip_offset) {
  return load_be32(frame + ip_offset + 16);
}

std::uint8_t ipv4_ttl(const std::uint8_t* frame, std::size_t ip_offset) {
  return frame[ip_offset + 8];
}

FiveTuple five_tuple(const std::uint8_t* frame, std::size_t length, std::size_t ip_offset) {
  const std::uint8_t* ip = frame + ip_offset;
  FiveTuple t;
  t.source = load_be32(ip + 12);
  t.destination = load_be32(ip + 16);
  t.protocol = ip[9];
  const std::size_t l4 = ip_offset + header_bytes(ip);
  // TCP (6) and UDP (17) both start with the two ports.
  if ((t.protocol == 6 || t.protocol == kIpProtocolUdp) && length >= l4 + 4) {
    t.source_port = load_be16(frame + l4);
    t.destination_port = load_be16(frame + l4 + 2);
  }
  return t;
}

void forward_ipv4(std::uint8_t* frame, std::size_t ip_offset, const MacAddress& source,
                  const MacAddress& destination) {
  std::copy(destination.begin(), destination.end(), frame);
  std::copy(source.begin(), source.end(), frame + 6);
  std::uint8_t* ip = frame + ip_offset;
  --ip[8];
  refresh_checksum(ip, header_bytes(ip));
}

bool mark_congestion_experienced(std::uint8_t* frame, std::size_t ip_offset) {
  std::uint8_t* ip = frame + ip_offset;
  if ((ip[1] & 0x03) == static_cast<std::uint8_t>(Ecn::kNotEct)) return false;
  ip[1] = static_cast<std::uint8_t>(ip[1] | static_cast<std::uint8_t>(Ecn::kCe));
  refresh_checksum(ip, header_bytes(ip));
  return true;
}

}  // namespace rnicsim::packet
