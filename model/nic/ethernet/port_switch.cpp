#include "nic/ethernet/port_switch.hpp"

#include "formats/headers.hpp"

namespace rnicsim {
namespace {

std::uint16_t big_endian16(const std::uint8_t* at) {
  return static_cast<std::uint16_t>(at[0] << 8 | at[1]);
}

constexpr std::uint16_t kEtherTypeVlan = 0x8100;
constexpr std::uint16_t kEtherTypeIpv4 = 0x0800;
constexpr std::uint16_t kEtherTypeIpv6 = 0x86DD;
constexpr std::uint8_t kIpProtocolUdp = 17;

}  // namespace

bool is_roce_v2_frame(const std::uint8_t* frame, std::size_t length) {
  std::size_t at = 12;  // the EtherType, after both MAC addresses
  if (length < at + 2) return false;
  std::uint16_t ether_type = big_endian16(frame + at);
  at += 2;
  if (ether_type == kEtherTypeVlan) {
    if (length < at + 4) return false;
    ether_type = big_endian16(frame + at + 2);
    at += 4;
  }
  std::size_t udp = 0;
  if (ether_type == kEtherTypeIpv4) {
    if (length < at + 20) return false;
    const std::size_t header_bytes = static_cast<std::size_t>(frame[at] & 0x0F) * 4;
    if (frame[at + 9] != kIpProtocolUdp || header_bytes < 20) return false;
    udp = at + header_bytes;
  } else if (ether_type == kEtherTypeIpv6) {
    if (length < at + 40 || frame[at + 6] != kIpProtocolUdp) return false;
    udp = at + 40;
  } else {
    return false;
  }
  return length >= udp + 4 && big_endian16(frame + udp + 2) == packet::kRoceV2UdpPort;
}

}  // namespace rnicsim
