// What our parser makes of the frames we build ourselves (own_frames.hpp):
// the features no redistributable capture carries. That these frames are
// what they claim (ICRC, field positions) is checked outside our code, by
// scapy and tshark (golden.own_frames_match_scapy_and_tshark); here the
// parser must accept them and decode the intended values.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "own_frames.hpp"
#include "formats/frame.hpp"
#include "formats/headers.hpp"

namespace rnicsim::packet {
namespace {

using Bytes = std::vector<std::uint8_t>;
using testbench::own_frame;

constexpr std::size_t kBthByte4 = 14 + 20 + 8 + 4;  // untagged IPv4

ParseResult parse_ok(const Bytes& frame) {
  const ParseResult r = parse_frame(frame.data(), frame.size());
  EXPECT_TRUE(r.ok()) << to_string(*r.error);
  EXPECT_TRUE(r.icrc_ok);
  return r;
}

std::string payload_text(const Bytes& frame, const RocePacket& p) {
  return std::string(
      frame.begin() + static_cast<std::ptrdiff_t>(p.payload_offset),
      frame.begin() + static_cast<std::ptrdiff_t>(p.payload_offset + p.payload_length));
}

TEST(OwnFrames, EveryFrameParsesAndRebuildsToItsBytes) {
  ASSERT_EQ(testbench::own_frames().size(), 10u);
  for (const auto& [name, frame] : testbench::own_frames()) {
    SCOPED_TRACE(name);
    const ParseResult r = parse_ok(frame);
    Bytes rebuilt =
        build_frame(r.packet, frame.data() + r.packet.payload_offset, r.packet.payload_length);
    if (r.packet.udp.checksum != 0) {  // build_frame writes 0; masked out of the ICRC
      const std::size_t at = rebuilt.size() - r.packet.udp.length + 6;
      store_be16(r.packet.udp.checksum, &rebuilt[at]);
    }
    EXPECT_EQ(rebuilt, frame);
  }
}

TEST(OwnFrames, CnpCarriesBecnAndSixteenReservedZeroBytes) {
  const Bytes& frame = own_frame("cnp_becn_dscp48_ect0");
  const ParseResult r = parse_ok(frame);
  const Bth& bth = r.packet.bth;
  EXPECT_EQ(bth.opcode, 0x81);
  EXPECT_EQ(frame[kBthByte4], 0x40);
  EXPECT_TRUE(bth.becn);
  EXPECT_FALSE(bth.fecn);
  EXPECT_EQ(bth.resv6a, 0);
  EXPECT_EQ(bth.dest_qp, 0xD2C1u);
  EXPECT_EQ(bth.psn, 0u);
  EXPECT_FALSE(bth.ack_req);
  EXPECT_EQ(bth.pkey, 0xFFFF);
  const auto& ip = std::get<Ipv4Header>(r.packet.ip);
  EXPECT_EQ(ip.tos, 0xC2);  // DSCP 48 + ECT(0)
  EXPECT_EQ(ip.total_length, 60);
  EXPECT_EQ(r.packet.udp.length, 40);
  EXPECT_EQ(r.packet.udp.source_port, 0);
  EXPECT_EQ(r.packet.payload_length, 0u);  // the 16 reserved bytes are not payload
  ASSERT_EQ(frame.size(), 74u);
  EXPECT_EQ(Bytes(frame.begin() + 54, frame.begin() + 70), Bytes(16, 0));
}

TEST(OwnFrames, ReservedBthByte4BitIsAcceptedAndKept) {
  const Bytes& frame = own_frame("rc_send_only_imm_reserved_bth_bit_migreq_pad3");
  const ParseResult r = parse_ok(frame);
  EXPECT_EQ(frame[kBthByte4], 0x10);
  EXPECT_EQ(r.packet.bth.opcode, 0x05);
  EXPECT_EQ(r.packet.bth.resv6a, 0x10);
  EXPECT_FALSE(r.packet.bth.fecn);
  EXPECT_FALSE(r.packet.bth.becn);
  EXPECT_TRUE(r.packet.bth.mig_req);
  EXPECT_EQ(r.packet.bth.pad_count, 3);
  ASSERT_TRUE(r.packet.imm_dt);
  EXPECT_EQ(r.packet.imm_dt->value, 0xCAFEF00Du);
  EXPECT_EQ(payload_text(frame, r.packet), "abcde");
  EXPECT_EQ(std::get<Ipv4Header>(r.packet.ip).tos, 0x02);  // ECT(0)
  EXPECT_EQ(r.packet.udp.source_port, 69);
}

TEST(OwnFrames, AckWithEct0MigReqAndCreditCode) {
  const ParseResult r = parse_ok(own_frame("rc_ack_ect0_migreq_credit6"));
  EXPECT_EQ(r.packet.bth.opcode, 0x11);
  EXPECT_TRUE(r.packet.bth.mig_req);
  const auto& ip = std::get<Ipv4Header>(r.packet.ip);
  EXPECT_EQ(ip.tos, 0x02);
  EXPECT_EQ(ip.ttl, 255);
  EXPECT_EQ(ip.identification, 0);
  EXPECT_EQ(r.packet.udp.source_port, 72);
  ASSERT_TRUE(r.packet.aeth);
  EXPECT_EQ(r.packet.aeth->syndrome, 0x06);
  EXPECT_EQ(r.packet.aeth->msn, 1u);
}

TEST(OwnFrames, NonZeroUdpChecksumIsNeitherCheckedNorCovered) {
  Bytes frame = own_frame("uc_send_only_udp_checksum_migreq_pad2");
  const ParseResult r = parse_ok(frame);
  EXPECT_EQ(r.packet.bth.opcode, 0x24);
  EXPECT_TRUE(r.packet.bth.mig_req);
  EXPECT_EQ(r.packet.bth.pad_count, 2);
  EXPECT_EQ(r.packet.payload_length, 18u);
  EXPECT_EQ(std::get<Ipv4Header>(r.packet.ip).tos, 0x01);
  EXPECT_NE(r.packet.udp.checksum, 0);
  for (const std::uint16_t checksum : {0x0000, 0xFFFF, 0x1234}) {
    store_be16(checksum, &frame[14 + 20 + 6]);
    const ParseResult other = parse_ok(frame);
    EXPECT_EQ(other.packet.udp.checksum, checksum);
    EXPECT_EQ(other.icrc_computed, r.icrc_computed);
  }
}

TEST(OwnFrames, PadCountsOneToThreeWithZeroPadBytes) {
  const struct {
    const char* name;
    std::size_t payload;
    std::uint8_t pad;
  } cases[] = {
      {"ud_send_only_imm_pad1", 3, 1},
      {"rc_read_response_last_pad1", 7, 1},
      {"rc_write_only_pad2", 18, 2},
      {"ipv6_rc_send_only_pad2", 6, 2},
      {"rc_send_only_imm_reserved_bth_bit_migreq_pad3", 5, 3},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const Bytes& frame = own_frame(c.name);
    const ParseResult r = parse_ok(frame);
    EXPECT_EQ(r.packet.bth.pad_count, c.pad);
    EXPECT_EQ(r.packet.payload_length, c.payload);
    const std::size_t pad_at = r.packet.payload_offset + r.packet.payload_length;
    EXPECT_EQ(pad_at + c.pad + 4, frame.size());  // pad, then the ICRC
    for (std::size_t i = pad_at; i < pad_at + c.pad; ++i) EXPECT_EQ(frame[i], 0) << i;
  }
}

TEST(OwnFrames, WriteOnlyRethAndPayload) {
  const Bytes& frame = own_frame("rc_write_only_pad2");
  const ParseResult r = parse_ok(frame);
  EXPECT_EQ(r.packet.bth.opcode, 0x0A);
  EXPECT_TRUE(r.packet.bth.ack_req);
  EXPECT_EQ(r.packet.bth.psn, 0x123456u);
  ASSERT_TRUE(r.packet.reth);
  EXPECT_EQ(r.packet.reth->virtual_address, 0x00007F0012345000u);
  EXPECT_EQ(r.packet.reth->rkey, 0x1234u);
  EXPECT_EQ(r.packet.reth->dma_length, 18u);
  EXPECT_EQ(r.packet.payload_offset, 14u + 20 + 8 + 12 + 16);
  EXPECT_EQ(payload_text(frame, r.packet), "rnicsim wrote this");
}

TEST(OwnFrames, Ipv6TrafficClassFlowLabelHopLimit) {
  const Bytes& frame = own_frame("ipv6_rc_send_only_pad2");
  const ParseResult r = parse_ok(frame);
  ASSERT_TRUE(r.packet.is_ipv6());
  const auto& ip = std::get<Ipv6Header>(r.packet.ip);
  EXPECT_EQ(ip.traffic_class, 0x6A);
  EXPECT_EQ(ip.flow_label, 0xABCDEu);
  EXPECT_EQ(ip.hop_limit, 5);
  EXPECT_EQ(ip.payload_length, 32);
  EXPECT_EQ(r.packet.bth.opcode, 0x04);
  EXPECT_TRUE(r.packet.bth.solicited_event);
  EXPECT_TRUE(r.packet.bth.ack_req);
  EXPECT_EQ(r.packet.bth.psn, 0xFFFFFFu);
  EXPECT_EQ(payload_text(frame, r.packet), "sixsix");
}

TEST(OwnFrames, Ipv6NakWithFecn) {
  const Bytes& frame = own_frame("ipv6_rc_nak_fecn");
  const ParseResult r = parse_ok(frame);
  const auto& ip = std::get<Ipv6Header>(r.packet.ip);
  EXPECT_EQ(ip.traffic_class, 0x03);  // ECN CE
  EXPECT_EQ(ip.hop_limit, 255);
  EXPECT_EQ(frame[14 + 40 + 8 + 4], 0x80);
  EXPECT_TRUE(r.packet.bth.fecn);
  EXPECT_FALSE(r.packet.bth.becn);
  ASSERT_TRUE(r.packet.aeth);
  EXPECT_EQ(r.packet.aeth->syndrome, 0x60);  // NAK: PSN sequence error
  EXPECT_EQ(r.packet.aeth->msn, 0x123456u);
}

TEST(OwnFrames, VlanTaggedSend) {
  const ParseResult r = parse_ok(own_frame("vlan_rc_send_only"));
  ASSERT_TRUE(r.packet.ethernet.vlan_tci);
  EXPECT_EQ(*r.packet.ethernet.vlan_tci, 0x6064);  // PCP 3, VID 100
  EXPECT_EQ(r.packet.ethernet.size(), 18u);
  EXPECT_EQ(std::get<Ipv4Header>(r.packet.ip).tos, 0x68);
  EXPECT_EQ(r.packet.payload_length, 4u);
}

TEST(OwnFrames, UdSendOnlyWithImmediateDethThenImmDt) {
  const Bytes& frame = own_frame("ud_send_only_imm_pad1");
  const ParseResult r = parse_ok(frame);
  EXPECT_EQ(r.packet.bth.opcode, 0x65);
  ASSERT_TRUE(r.packet.deth);
  EXPECT_EQ(r.packet.deth->qkey, 0x11111111u);
  EXPECT_EQ(r.packet.deth->source_qp, 0xABCu);
  ASSERT_TRUE(r.packet.imm_dt);
  EXPECT_EQ(r.packet.imm_dt->value, 0x01020304u);
  EXPECT_EQ(payload_text(frame, r.packet), "ud!");
}

}  // namespace
}  // namespace rnicsim::packet
