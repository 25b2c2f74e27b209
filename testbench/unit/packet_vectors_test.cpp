// The packet codec against real RoCEv2 frames: the 20 ICRC test vectors of
// shared/testdata/roce (ConnectX-4 Lx, Huawei and rxe captures, scapy's test
// packets, one synthetic IPv6 frame). Their ICRCs come from the senders, so
// they check the ICRC independently of this code; the field checks follow
// shared/REFERENCE.md section 7.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "packet/frame.hpp"
#include "packet/headers.hpp"
#include "packet/icrc.hpp"

namespace rnicsim::packet {
namespace {

using Bytes = std::vector<std::uint8_t>;

Bytes from_hex(const std::string& hex) {
  Bytes bytes;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
    bytes.push_back(static_cast<std::uint8_t>(std::stoul(hex.substr(i, 2), nullptr, 16)));
  }
  return bytes;
}

const nlohmann::json& vectors() {
  static const nlohmann::json all = [] {
    std::ifstream in(RNICSIM_SHARED_DIR "/testdata/roce/icrc_test_vectors.json");
    if (!in) throw std::runtime_error("cannot open icrc_test_vectors.json");
    return nlohmann::json::parse(in);
  }();
  return all;
}

Bytes frame_of(const std::string& name) {
  for (const auto& v : vectors()) {
    if (v.at("name") == name) return from_hex(v.at("frame_hex").get<std::string>());
  }
  ADD_FAILURE() << "no vector " << name;
  return {};
}

// Parses a vector that must be valid; the frame must outlive the result's use
// of payload_offset.
ParseResult parse_ok(const Bytes& frame) {
  const ParseResult r = parse_frame(frame.data(), frame.size());
  EXPECT_TRUE(r.ok()) << to_string(*r.error);
  EXPECT_TRUE(r.icrc_ok);
  return r;
}

TEST(Vectors, Crc32CheckValueOf123456789) {
  const std::string check = "123456789";
  EXPECT_EQ(crc32(reinterpret_cast<const std::uint8_t*>(check.data()), check.size()), 0xCBF43926u);
}

TEST(Vectors, Crc32OfTheMaskedRxeAckAndTheResidue) {
  // REFERENCE section 6 debug aid: the masked pseudo packet of rxe_rc_ack,
  // and the Ethernet-FCS-style residue over pseudo packet + wire ICRC.
  const Bytes pseudo = from_hex(
      "ffffffffffffffff45ff00305ece4000ff11ffffc0a84104c0a84105df9412b7001cffff1100ffffff000011"
      "008c84dd1f000001");
  ASSERT_EQ(pseudo.size(), 52u);
  const std::uint32_t crc = crc32(pseudo.data(), pseudo.size());
  EXPECT_EQ(crc, 0xC0C20CB3u);
  const Bytes wire = from_hex("b30cc2c0");
  EXPECT_EQ(crc32(wire.data(), wire.size(), crc), 0x2144DF1Cu);
}

TEST(Vectors, EveryVectorParsesWithTheSendersIcrc) {
  ASSERT_EQ(vectors().size(), 20u);
  for (const auto& v : vectors()) {
    const std::string name = v.at("name").get<std::string>();
    SCOPED_TRACE(name);
    const Bytes frame = from_hex(v.at("frame_hex").get<std::string>());
    EXPECT_EQ(frame.size(), v.at("frame_len").get<std::size_t>());
    const ParseResult r = parse_ok(frame);
    const std::uint32_t want =
        static_cast<std::uint32_t>(std::stoul(v.at("crc32_value").get<std::string>(), nullptr, 16));
    EXPECT_EQ(r.icrc_computed, want);
    EXPECT_EQ(r.icrc_received, want);
    Bytes wire(4);
    store_icrc(r.icrc_computed, wire.data());
    EXPECT_EQ(wire, from_hex(v.at("icrc_wire_hex").get<std::string>()));
  }
}

// build_frame from the parsed headers and payload gives back the captured
// frame; only scapy's packets differ, in the UDP checksum build_frame zeroes
// (it is masked out of the ICRC, so the ICRC still matches).
TEST(Vectors, RebuildingFromParsedFieldsReproducesTheFrame) {
  for (const auto& v : vectors()) {
    const std::string name = v.at("name").get<std::string>();
    SCOPED_TRACE(name);
    const Bytes frame = from_hex(v.at("frame_hex").get<std::string>());
    const ParseResult r = parse_ok(frame);
    const Bytes rebuilt =
        build_frame(r.packet, frame.data() + r.packet.payload_offset, r.packet.payload_length);
    Bytes want = frame;
    const std::size_t udp_checksum =
        r.packet.ethernet.size() + (r.packet.is_ipv6() ? Ipv6Header::kSize : Ipv4Header::kSize) + 6;
    want[udp_checksum] = want[udp_checksum + 1] = 0;
    EXPECT_EQ(rebuilt, want);
  }
}

TEST(Vectors, Tv1ConnectX4CnpCarriesBecn) {
  const Bytes frame = frame_of("cx4lx_cnp");
  const ParseResult r = parse_ok(frame);
  const Bth& bth = r.packet.bth;
  EXPECT_EQ(bth.opcode, 0x81);
  EXPECT_EQ(frame[14 + 20 + 8 + 4], 0x40);  // BTH byte 4
  EXPECT_TRUE(bth.becn);
  EXPECT_FALSE(bth.fecn);
  EXPECT_EQ(bth.resv6a, 0);
  EXPECT_EQ(bth.dest_qp, 0x118u);
  EXPECT_EQ(bth.psn, 0u);
  EXPECT_FALSE(bth.ack_req);
  EXPECT_EQ(bth.pkey, 0xFFFF);
  const auto& ip = std::get<Ipv4Header>(r.packet.ip);
  EXPECT_EQ(ip.tos, 0xC2);  // DSCP 48 + ECT(0)
  EXPECT_EQ(ip.total_length, 60);
  EXPECT_EQ(r.packet.udp.length, 40);
  EXPECT_EQ(r.packet.udp.source_port, 0);
  EXPECT_EQ(r.packet.payload_length, 0u);  // the 16 reserved bytes are not payload
  EXPECT_EQ(r.icrc_computed, 0x2A00FD82u);
}

TEST(Vectors, Tv3RxeAckSyndromeAndMsn) {
  const ParseResult r = parse_ok(frame_of("rxe_rc_ack"));
  EXPECT_EQ(r.packet.bth.opcode, 0x11);
  ASSERT_TRUE(r.packet.aeth);
  EXPECT_EQ(r.packet.aeth->syndrome, 0x1F);  // ACK, credits invalid
  EXPECT_EQ(r.packet.aeth->msn, 1u);
  EXPECT_EQ(r.packet.bth.psn, 0x8C84DDu);
  EXPECT_EQ(r.packet.bth.dest_qp, 0x11u);
  EXPECT_EQ(r.packet.udp.source_port, 0xDF94);
}

TEST(Vectors, Tv4RxeWriteOnlyRethPadAndPayload) {
  const Bytes frame = frame_of("rxe_rc_write_only_pad2");
  const ParseResult r = parse_ok(frame);
  EXPECT_EQ(r.packet.bth.opcode, 0x0A);
  EXPECT_EQ(r.packet.bth.pad_count, 2);
  EXPECT_TRUE(r.packet.bth.ack_req);
  EXPECT_EQ(r.packet.bth.psn, 0x8C84DDu);
  ASSERT_TRUE(r.packet.reth);
  EXPECT_EQ(r.packet.reth->virtual_address, 0x0000AAAB09DD5000u);
  EXPECT_EQ(r.packet.reth->rkey, 0x2D5u);
  EXPECT_EQ(r.packet.reth->dma_length, 18u);
  EXPECT_EQ(r.packet.payload_length, 18u);
  EXPECT_EQ(r.packet.payload_offset, 14u + 20 + 8 + 12 + 16);
  const std::string text(frame.begin() + static_cast<std::ptrdiff_t>(r.packet.payload_offset),
                         frame.begin() + static_cast<std::ptrdiff_t>(r.packet.payload_offset) + 17);
  EXPECT_EQ(text, "client-wrote-this");
}

TEST(Vectors, Tv6HuaweiHardwareFields) {
  // The Huawei SEND ONLY IMM sets a reserved bit in BTH byte 4; accepted, and
  // the ICRC matches because the whole byte is masked.
  const ParseResult send = parse_ok(frame_of("hw_rc_send_only_imm"));
  EXPECT_EQ(send.packet.bth.opcode, 0x05);
  EXPECT_EQ(send.packet.bth.resv6a, 0x10);
  EXPECT_FALSE(send.packet.bth.fecn);
  EXPECT_FALSE(send.packet.bth.becn);
  EXPECT_EQ(send.packet.bth.pad_count, 3);
  EXPECT_TRUE(send.packet.bth.mig_req);
  ASSERT_TRUE(send.packet.imm_dt);
  EXPECT_EQ(send.packet.imm_dt->value, 1u);
  EXPECT_EQ(send.packet.udp.source_port, 69);

  const ParseResult ack = parse_ok(frame_of("hw_rc_ack"));  // TV6
  EXPECT_EQ(ack.packet.bth.opcode, 0x11);
  EXPECT_TRUE(ack.packet.bth.mig_req);
  EXPECT_EQ(std::get<Ipv4Header>(ack.packet.ip).tos, 0x02);  // ECT(0)
  EXPECT_EQ(std::get<Ipv4Header>(ack.packet.ip).identification, 0);
  EXPECT_EQ(ack.packet.udp.source_port, 72);
  ASSERT_TRUE(ack.packet.aeth);
  EXPECT_EQ(ack.packet.aeth->syndrome, 0x06);
  EXPECT_EQ(ack.packet.aeth->msn, 1u);
}

TEST(Vectors, Tv7RxeFetchAddAtomicEth) {
  const ParseResult r = parse_ok(frame_of("rxe_rc_fetch_add"));
  EXPECT_EQ(r.packet.bth.opcode, 0x14);
  ASSERT_TRUE(r.packet.atomic_eth);
  EXPECT_EQ(r.packet.atomic_eth->virtual_address, 0x00006320D6BE5000u);
  EXPECT_EQ(r.packet.atomic_eth->rkey, 0x1986u);
  EXPECT_EQ(r.packet.atomic_eth->swap_add, 1u);
  EXPECT_EQ(r.packet.atomic_eth->compare, 0u);
  EXPECT_EQ(r.packet.payload_length, 0u);
}

TEST(Vectors, Tv8RxeAtomicAckOriginalData) {
  const ParseResult r = parse_ok(frame_of("rxe_rc_atomic_ack"));
  EXPECT_EQ(r.packet.bth.opcode, 0x12);
  ASSERT_TRUE(r.packet.aeth);
  EXPECT_EQ(r.packet.aeth->syndrome, 0x1F);
  EXPECT_EQ(r.packet.aeth->msn, 1u);
  ASSERT_TRUE(r.packet.atomic_ack_eth);
  EXPECT_EQ(r.packet.atomic_ack_eth->original_data, 0x3A01A68D6B397AC6u);
}

TEST(Vectors, Tv10Ipv6TrafficClassFlowLabelHopLimit) {
  const Bytes frame = frame_of("synthetic_ipv6_rc_send_only");
  const ParseResult r = parse_ok(frame);
  ASSERT_TRUE(r.packet.is_ipv6());
  const auto& ip = std::get<Ipv6Header>(r.packet.ip);
  EXPECT_EQ(ip.traffic_class, 0x68);
  EXPECT_EQ(ip.flow_label, 0x12345u);
  EXPECT_EQ(ip.hop_limit, 64);
  EXPECT_EQ(ip.payload_length, 32);
  EXPECT_EQ(r.packet.bth.opcode, 0x04);
  EXPECT_TRUE(r.packet.bth.solicited_event);
  EXPECT_TRUE(r.packet.bth.ack_req);
  EXPECT_EQ(r.packet.bth.psn, 0x123456u);
  const std::string text(frame.begin() + static_cast<std::ptrdiff_t>(r.packet.payload_offset),
                         frame.begin() + static_cast<std::ptrdiff_t>(r.packet.payload_offset +
                                                                     r.packet.payload_length));
  EXPECT_EQ(text, "ABCDEFGH");
}

TEST(Vectors, UdCmRequestCarriesDeth) {
  const ParseResult r = parse_ok(frame_of("rxe_ud_cm_req"));
  EXPECT_EQ(r.packet.bth.opcode, 0x64);
  EXPECT_EQ(r.packet.bth.dest_qp, 1u);  // GSI QP1
  ASSERT_TRUE(r.packet.deth);
  EXPECT_EQ(r.packet.deth->qkey, 0x80010000u);  // GSI Q_Key
  EXPECT_EQ(r.packet.payload_length, 256u);     // the MAD
}

TEST(Vectors, ScapyUcSendOnlyWithNonZeroUdpChecksum) {
  const ParseResult r = parse_ok(frame_of("scapy_uc_send_only"));
  EXPECT_EQ(r.packet.bth.opcode, 0x24);
  EXPECT_TRUE(r.packet.bth.mig_req);
  EXPECT_EQ(r.packet.bth.pad_count, 2);
  EXPECT_EQ(r.packet.payload_length, 18u);
  EXPECT_EQ(r.packet.udp.checksum, 0xACA2);
  EXPECT_EQ(std::get<Ipv4Header>(r.packet.ip).checksum, 0xB4D5);
  EXPECT_EQ(r.icrc_computed, 0xF353F378u);
}

}  // namespace
}  // namespace rnicsim::packet
