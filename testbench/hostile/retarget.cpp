#include "hostile/retarget.hpp"

#include <stdexcept>

#include "formats/pcap.hpp"

namespace rnicsim::hostile {

namespace {

// Calls `use` with each record of the file that parses as RoCEv2, in file order.
template <typename Use>
void for_each_roce_frame(const std::string& pcap_path, Use use) {
  packet::PcapReader reader(pcap_path);
  packet::PcapRecord record;
  while (reader.next(record)) {
    const packet::ParseResult parsed = packet::parse_frame(record.data.data(), record.data.size());
    if (parsed.ok()) use(record.data, parsed.packet);
  }
}

}  // namespace

packet::RocePacket retarget_headers(const packet::RocePacket& headers, const HostileTarget& target,
                                    std::uint32_t qpn) {
  packet::RocePacket out = headers;
  out.ethernet.source = target.mac_source;
  out.ethernet.destination = target.mac_destination;
  out.ethernet.vlan_tci.reset();
  out.ethernet.ether_type = packet::kEtherTypeIpv4;
  packet::Ipv4Header ipv4;
  if (const auto* captured = std::get_if<packet::Ipv4Header>(&headers.ip)) {
    ipv4 = *captured;
  } else {
    const auto& ipv6 = std::get<packet::Ipv6Header>(headers.ip);
    ipv4.tos = ipv6.traffic_class;
    ipv4.ttl = ipv6.hop_limit;
  }
  ipv4.source = target.ip_source;
  ipv4.destination = target.ip_destination;
  out.ip = ipv4;
  out.bth.dest_qp = qpn & packet::kPsnMask;
  return out;
}

std::vector<std::vector<std::uint8_t>> retarget_capture(const std::string& pcap_path,
                                                        const HostileTarget& target,
                                                        bool use_expected_psn) {
  if (target.attacked_qpns.empty()) {
    throw std::invalid_argument("retarget_capture: the target has no attacked QPN");
  }
  if (use_expected_psn && !target.expected_psn) {
    throw std::invalid_argument("retarget_capture: the target has no expected_psn");
  }
  std::vector<std::vector<std::uint8_t>> frames;
  for_each_roce_frame(
      pcap_path, [&](const std::vector<std::uint8_t>& bytes, const packet::RocePacket& parsed) {
        const std::uint32_t qpn = target.attacked_qpns[frames.size() % target.attacked_qpns.size()];
        packet::RocePacket headers = retarget_headers(parsed, target, qpn);
        if (use_expected_psn) headers.bth.psn = target.expected_psn(qpn) & packet::kPsnMask;
        frames.push_back(packet::build_frame(headers, bytes.data() + parsed.payload_offset,
                                             parsed.payload_length));
      });
  return frames;
}

std::vector<std::vector<std::uint8_t>> roce_frames_of(const std::string& pcap_path) {
  std::vector<std::vector<std::uint8_t>> frames;
  for_each_roce_frame(pcap_path, [&frames](const std::vector<std::uint8_t>& bytes,
                                           const packet::RocePacket&) { frames.push_back(bytes); });
  return frames;
}

}  // namespace rnicsim::hostile
