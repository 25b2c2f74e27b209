#include "own_frames.hpp"

#include <stdexcept>
#include <string_view>

#include "formats/frame.hpp"
#include "formats/headers.hpp"

namespace rnicsim::testbench {
namespace {

using packet::Aeth;
using packet::Deth;
using packet::ImmDt;
using packet::Ipv4Header;
using packet::Ipv6Header;
using packet::Reth;
using packet::RocePacket;

// Addresses from the documentation ranges: 192.0.2.0/24 (RFC 5737),
// 2001:db8::/32 (RFC 3849), locally administered MACs.
RocePacket ipv4(std::uint8_t tos, std::uint16_t identification, std::uint8_t ttl,
                std::uint16_t source_port) {
  RocePacket p;
  p.ethernet.destination = {0x02, 0x00, 0x00, 0x00, 0x00, 0x02};
  p.ethernet.source = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
  Ipv4Header ip;
  ip.tos = tos;
  ip.identification = identification;
  ip.ttl = ttl;
  ip.source = 0xC0000201;
  ip.destination = 0xC0000202;
  p.ip = ip;
  p.udp.source_port = source_port;
  return p;
}

RocePacket ipv6(std::uint8_t traffic_class, std::uint32_t flow_label, std::uint8_t hop_limit,
                std::uint16_t source_port) {
  RocePacket p = ipv4(0, 0, 0, source_port);
  Ipv6Header ip;
  ip.traffic_class = traffic_class;
  ip.flow_label = flow_label;
  ip.hop_limit = hop_limit;
  ip.source = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01};
  ip.destination = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02};
  p.ip = ip;
  return p;
}

std::vector<std::uint8_t> build(const RocePacket& p, std::string_view payload = {}) {
  return packet::build_frame(p, reinterpret_cast<const std::uint8_t*>(payload.data()),
                             payload.size());
}

std::uint32_t add_words(std::uint32_t sum, const std::uint8_t* bytes, std::size_t length) {
  for (std::size_t i = 0; i < length; i += 2) {
    sum += static_cast<std::uint32_t>(bytes[i] << 8) | (i + 1 < length ? bytes[i + 1] : 0u);
  }
  return sum;
}

// Writes the RFC 768 checksum of the IPv4/UDP frame (no VLAN tag) into its UDP
// header. The ICRC masks this field, so the frame's ICRC stays valid.
void set_udp_checksum(std::vector<std::uint8_t>& frame) {
  constexpr std::size_t kIp = 14;
  constexpr std::size_t kUdp = kIp + Ipv4Header::kSize;
  const std::uint16_t udp_length = packet::load_be16(&frame[kUdp + 4]);
  const std::uint8_t pseudo_tail[4] = {0, packet::kIpProtocolUdp, frame[kUdp + 4], frame[kUdp + 5]};
  std::uint32_t sum = add_words(0, &frame[kIp + 12], 8);  // source and destination address
  sum = add_words(sum, pseudo_tail, sizeof pseudo_tail);
  sum = add_words(sum, &frame[kUdp], udp_length);  // its checksum field is still 0
  while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
  const std::uint16_t checksum = static_cast<std::uint16_t>(~sum);
  packet::store_be16(checksum == 0 ? 0xFFFF : checksum, &frame[kUdp + 6]);
}

std::vector<OwnFrame> make_frames() {
  std::vector<OwnFrame> frames;

  {  // REFERENCE.md section 5: opcode 0x81, BECN, PSN 0, 16 reserved zero bytes.
    RocePacket p = ipv4(0xC2, 0x1001, 64, 0);  // DSCP 48 + ECT(0)
    p.bth.opcode = 0x81;
    p.bth.becn = true;
    p.bth.dest_qp = 0x00D2C1;
    frames.push_back({"cnp_becn_dscp48_ect0", build(p)});
  }
  {
    RocePacket p = ipv4(0x02, 0, 64, 69);  // ECT(0); source port 69 is TFTP's
    p.bth.opcode = 0x05;                   // RC SEND ONLY WITH IMMEDIATE
    p.bth.mig_req = true;
    p.bth.resv6a = 0x10;  // a reserved bit of BTH byte 4, as some hardware sends
    p.bth.dest_qp = 0x000045;
    p.bth.ack_req = true;
    p.bth.psn = 0x000100;
    p.imm_dt = ImmDt{0xCAFEF00D};
    frames.push_back({"rc_send_only_imm_reserved_bth_bit_migreq_pad3", build(p, "abcde")});
  }
  {
    RocePacket p = ipv4(0x02, 0, 255, 72);
    p.bth.opcode = 0x11;  // RC ACKNOWLEDGE
    p.bth.mig_req = true;
    p.bth.dest_qp = 0x000046;
    p.bth.psn = 0x000100;
    p.aeth = Aeth{0x06, 1};  // ACK with credit code 6
    frames.push_back({"rc_ack_ect0_migreq_credit6", build(p)});
  }
  {
    RocePacket p = ipv4(0x01, 0x0478, 64, 0xC000);  // ECT(1)
    p.bth.opcode = 0x24;                            // UC SEND ONLY
    p.bth.mig_req = true;
    p.bth.dest_qp = 0x000123;
    p.bth.psn = 0x000042;
    std::vector<std::uint8_t> frame = build(p, "eighteen byte data");
    set_udp_checksum(frame);
    frames.push_back({"uc_send_only_udp_checksum_migreq_pad2", frame});
  }
  {
    RocePacket p = ipv4(0, 0x2222, 64, 0xC123);
    p.bth.opcode = 0x0A;  // RC RDMA WRITE ONLY
    p.bth.dest_qp = 0x000777;
    p.bth.ack_req = true;
    p.bth.psn = 0x123456;
    p.reth = Reth{0x00007F0012345000, 0x00001234, 18};
    frames.push_back({"rc_write_only_pad2", build(p, "rnicsim wrote this")});
  }
  {
    RocePacket p = ipv4(0, 0x2223, 64, 0xC124);
    p.bth.opcode = 0x0F;  // RC RDMA READ RESPONSE LAST
    p.bth.dest_qp = 0x000778;
    p.bth.psn = 0x000009;
    p.aeth = Aeth{0x1F, 7};
    frames.push_back({"rc_read_response_last_pad1", build(p, "7 bytes")});
  }
  {
    RocePacket p = ipv6(0x6A, 0xABCDE, 5, 0xC200);  // DSCP 26 + ECT(0)
    p.bth.opcode = 0x04;                            // RC SEND ONLY
    p.bth.solicited_event = true;
    p.bth.ack_req = true;
    p.bth.dest_qp = 0x000ABC;
    p.bth.psn = 0xFFFFFF;
    frames.push_back({"ipv6_rc_send_only_pad2", build(p, "sixsix")});
  }
  {
    RocePacket p = ipv6(0x03, 0, 255, 0xC201);  // ECN CE
    p.bth.opcode = 0x11;
    p.bth.fecn = true;
    p.bth.dest_qp = 0x000ABD;
    p.bth.psn = 0x000001;
    p.aeth = Aeth{0x60, 0x123456};  // NAK: PSN sequence error
    frames.push_back({"ipv6_rc_nak_fecn", build(p)});
  }
  {
    RocePacket p = ipv4(0x68, 0x3333, 64, 0xC300);  // DSCP 26
    p.ethernet.vlan_tci = 0x6064;                   // PCP 3, VID 100
    p.bth.opcode = 0x04;
    p.bth.ack_req = true;
    p.bth.dest_qp = 0x000101;
    p.bth.psn = 0x000200;
    frames.push_back({"vlan_rc_send_only", build(p, "vlan")});
  }
  {
    RocePacket p = ipv4(0, 0x4444, 64, 0xC400);
    p.bth.opcode = 0x65;  // UD SEND ONLY WITH IMMEDIATE
    p.bth.dest_qp = 0x000321;
    p.bth.psn = 0x000033;
    p.deth = Deth{0x11111111, 0x000ABC};
    p.imm_dt = ImmDt{0x01020304};
    frames.push_back({"ud_send_only_imm_pad1", build(p, "ud!")});
  }
  return frames;
}

}  // namespace

const std::vector<OwnFrame>& own_frames() {
  static const std::vector<OwnFrame> frames = make_frames();
  return frames;
}

const std::vector<std::uint8_t>& own_frame(const std::string& name) {
  for (const OwnFrame& frame : own_frames()) {
    if (frame.name == name) return frame.bytes;
  }
  throw std::out_of_range("no own frame " + name);
}

}  // namespace rnicsim::testbench
