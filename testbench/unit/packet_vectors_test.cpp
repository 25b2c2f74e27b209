// The packet codec against real RoCEv2 frames from testbench/data/roce: the
// ICRC test vectors (Soft-RoCE frames from linlinw5's captures, one synthetic
// IPv6 frame) and frames read straight from the captures. Their ICRCs come
// from the senders (Linux rxe), so they check the ICRC independently of this
// code. The expected field values were read from the captures with tshark
// (tshark -r FILE -Y frame.number==N -T fields -e ...), not from our decoder.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

#include "formats/frame.hpp"
#include "formats/headers.hpp"
#include "formats/icrc.hpp"
#include "formats/pcap.hpp"

namespace rnicsim::packet {
namespace {

using Bytes = std::vector<std::uint8_t>;

const std::string kRoceData = RNICSIM_TEST_DATA_DIR "/roce";

Bytes from_hex(const std::string& hex) {
  Bytes bytes;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
    bytes.push_back(static_cast<std::uint8_t>(std::stoul(hex.substr(i, 2), nullptr, 16)));
  }
  return bytes;
}

const nlohmann::json& vectors() {
  static const nlohmann::json all = [] {
    std::ifstream in(kRoceData + "/icrc_test_vectors.json");
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

// Frame `number` (from 1, as tshark counts) of captures/`file`.
Bytes capture_frame(const std::string& file, std::uint64_t number) {
  PcapReader reader(kRoceData + "/captures/" + file);
  PcapRecord record;
  for (std::uint64_t i = 1; reader.next(record); ++i) {
    if (i == number) return record.data;
  }
  ADD_FAILURE() << file << " has no frame " << number;
  return {};
}

// Parses a frame that must be valid; the frame must outlive the result's use
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

TEST(Vectors, Crc32OfAMaskedAckAndTheResidue) {
  // rdma_write_lat.pcap frame 24, an rxe RC ACK, masked by hand: 8 x FF, then
  // the IPv4 header with TOS, TTL and checksum set to FF, the UDP header with
  // its checksum FF, the BTH with byte 4 FF, the AETH. The CRC must equal
  // the ICRC rxe sent (wire 79 5b 56 3d, least significant byte first); over
  // pseudo packet + wire ICRC it leaves the Ethernet-FCS residue.
  const Bytes pseudo = from_hex(
      "ffffffffffffffff"
      "45ff0030ef674000ff11ffff0a01103e0a01103d"
      "c53412b7001cffff"
      "1100ffffff00002400891fb3"
      "1f000001");
  ASSERT_EQ(pseudo.size(), 52u);
  const std::uint32_t crc = crc32(pseudo.data(), pseudo.size());
  EXPECT_EQ(crc, 0x3D565B79u);
  const Bytes wire = from_hex("795b563d");
  EXPECT_EQ(crc32(wire.data(), wire.size(), crc), 0x2144DF1Cu);
  const Bytes frame = capture_frame("rdma_write_lat.pcap", 24);
  ASSERT_EQ(frame.size(), 62u);
  EXPECT_EQ(Bytes(frame.end() - 4, frame.end()), wire);
  EXPECT_EQ(parse_ok(frame).icrc_computed, crc);
}

TEST(Vectors, EveryVectorParsesWithTheSendersIcrc) {
  ASSERT_EQ(vectors().size(), 10u);
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

// testbench/data/roce/SOURCES.md says the vectors are frames of linlinw5's
// captures: every one whose capture is in the repository must be its frame.
TEST(Vectors, VectorsFromTheCapturesAreTheirFrames) {
  const std::regex from_capture(R"(^linlinw5/rdma_ib_tutorial pcap/(\w+\.pcap) frame (\d+)$)");
  int checked = 0;
  for (const auto& v : vectors()) {
    const std::string source = v.at("source").get<std::string>();
    std::smatch m;
    if (!std::regex_match(source, m, from_capture)) continue;
    SCOPED_TRACE(source);
    EXPECT_EQ(capture_frame(m[1], std::stoull(m[2])),
              from_hex(v.at("frame_hex").get<std::string>()));
    ++checked;
  }
  EXPECT_EQ(checked, 7);  // the other two come from nccl_node0.pcap, not copied here
}

// build_frame from the parsed headers and payload gives back the captured
// frame; only the synthetic IPv6 vector differs, in the UDP checksum
// build_frame zeroes (it is masked out of the ICRC, so the ICRC still matches).
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

TEST(Vectors, RxeAckSyndromeAndMsn) {
  const ParseResult r = parse_ok(capture_frame("rdma_write_lat.pcap", 24));
  EXPECT_EQ(r.packet.bth.opcode, 0x11);
  ASSERT_TRUE(r.packet.aeth);
  EXPECT_EQ(r.packet.aeth->syndrome, 0x1F);  // ACK, credits invalid
  EXPECT_EQ(r.packet.aeth->msn, 1u);
  EXPECT_EQ(r.packet.bth.psn, 8986547u);
  EXPECT_EQ(r.packet.bth.dest_qp, 0x24u);
  EXPECT_FALSE(r.packet.bth.ack_req);
  EXPECT_EQ(r.packet.udp.source_port, 50484);
  EXPECT_EQ(std::get<Ipv4Header>(r.packet.ip).identification, 0xEF67);
  EXPECT_EQ(r.packet.payload_length, 0u);
}

TEST(Vectors, RxeWriteOnlyRethAndPayloadAckedWithTheSamePsn) {
  const Bytes frame = capture_frame("rdma_write_lat.pcap", 23);
  ASSERT_EQ(frame.size(), 138u);
  const ParseResult r = parse_ok(frame);
  EXPECT_EQ(r.packet.bth.opcode, 0x0A);
  EXPECT_EQ(r.packet.bth.pad_count, 0);
  EXPECT_TRUE(r.packet.bth.ack_req);
  EXPECT_EQ(r.packet.bth.psn, 8986547u);
  EXPECT_EQ(r.packet.bth.dest_qp, 0x25u);
  ASSERT_TRUE(r.packet.reth);
  EXPECT_EQ(r.packet.reth->virtual_address, 0x000062F896BFB000u);
  EXPECT_EQ(r.packet.reth->rkey, 0x1626u);
  EXPECT_EQ(r.packet.reth->dma_length, 64u);
  EXPECT_EQ(r.packet.payload_length, 64u);
  EXPECT_EQ(r.packet.payload_offset, 14u + 20 + 8 + 12 + 16);
  // Frame 24 acknowledges it: same PSN.
  EXPECT_EQ(parse_ok(capture_frame("rdma_write_lat.pcap", 24)).packet.bth.psn, r.packet.bth.psn);
}

TEST(Vectors, RxeSendOnlyWithPadCountTwo) {
  // rdma_cm.pcap frame 16: a 2-byte SEND ONLY ("3" and NUL), 2 zero pad bytes.
  const Bytes frame = capture_frame("rdma_cm.pcap", 16);
  ASSERT_EQ(frame.size(), 62u);
  const ParseResult r = parse_ok(frame);
  EXPECT_EQ(r.packet.bth.opcode, 0x04);
  EXPECT_EQ(r.packet.bth.pad_count, 2);
  EXPECT_TRUE(r.packet.bth.ack_req);
  EXPECT_EQ(r.packet.bth.dest_qp, 0x3Bu);
  EXPECT_EQ(r.packet.bth.psn, 7503216u);
  EXPECT_EQ(r.packet.payload_length, 2u);
  EXPECT_EQ(Bytes(frame.begin() + 54, frame.begin() + 58), (Bytes{0x33, 0x00, 0x00, 0x00}));
}

TEST(Vectors, RxeReadRequestThenFirstMiddleLastResponses) {
  // rdma_read_bw.pcap: READ REQUEST for 3000 B (frame 22), answered at PMTU
  // 1024 by FIRST, MIDDLE, LAST (frames 27-29) with consecutive PSNs; the
  // next READ REQUEST (frame 23) comes ceil(3000 / 1024) = 3 PSNs later.
  const ParseResult request = parse_ok(capture_frame("rdma_read_bw.pcap", 22));
  EXPECT_EQ(request.packet.bth.opcode, 0x0C);
  EXPECT_TRUE(request.packet.bth.ack_req);
  EXPECT_EQ(request.packet.bth.dest_qp, 0x1Cu);
  EXPECT_EQ(request.packet.bth.psn, 6433910u);
  ASSERT_TRUE(request.packet.reth);
  EXPECT_EQ(request.packet.reth->virtual_address, 0x000062AC533FD000u);
  EXPECT_EQ(request.packet.reth->rkey, 0xD48u);
  EXPECT_EQ(request.packet.reth->dma_length, 3000u);
  EXPECT_EQ(request.packet.payload_length, 0u);
  EXPECT_EQ(parse_ok(capture_frame("rdma_read_bw.pcap", 23)).packet.bth.psn, 6433913u);

  const struct {
    std::uint64_t frame;
    std::uint8_t opcode;
    bool aeth;
    std::size_t payload;
  } responses[] = {{27, 0x0D, true, 1024}, {28, 0x0E, false, 1024}, {29, 0x0F, true, 952}};
  std::uint32_t psn = request.packet.bth.psn;
  for (const auto& want : responses) {
    SCOPED_TRACE(want.frame);
    const ParseResult r = parse_ok(capture_frame("rdma_read_bw.pcap", want.frame));
    EXPECT_EQ(r.packet.bth.opcode, want.opcode);
    EXPECT_FALSE(r.packet.bth.ack_req);  // the responder does not ask for ACKs
    EXPECT_EQ(r.packet.bth.dest_qp, 0x1Eu);
    EXPECT_EQ(r.packet.bth.psn, psn++);
    EXPECT_EQ(r.packet.payload_length, want.payload);
    ASSERT_EQ(r.packet.aeth.has_value(), want.aeth);
    if (want.aeth) {
      EXPECT_EQ(r.packet.aeth->syndrome, 0x1F);
      EXPECT_EQ(r.packet.aeth->msn, 1u);
    }
  }
}

TEST(Vectors, UdCmConnectRequestOnQp1CarriesDethAndTheMad) {
  // rdma_cm.pcap frame 1: the RDMA-CM ConnectRequest, a 256-byte MAD sent as
  // UD SEND ONLY to the GSI QP1.
  const Bytes frame = capture_frame("rdma_cm.pcap", 1);
  ASSERT_EQ(frame.size(), 322u);
  const ParseResult r = parse_ok(frame);
  EXPECT_EQ(r.packet.bth.opcode, 0x64);
  EXPECT_EQ(r.packet.bth.dest_qp, 1u);
  EXPECT_EQ(r.packet.bth.psn, 26u);
  ASSERT_TRUE(r.packet.deth);
  EXPECT_EQ(r.packet.deth->qkey, 0x80010000u);  // GSI Q_Key
  EXPECT_EQ(r.packet.deth->source_qp, 1u);
  EXPECT_EQ(r.packet.udp.source_port, 55410);
  ASSERT_EQ(r.packet.payload_length, 256u);
  const std::uint8_t* mad = frame.data() + r.packet.payload_offset;
  EXPECT_EQ(mad[0], 0x01);                              // base version
  EXPECT_EQ(mad[1], 0x07);                              // management class: CM
  EXPECT_EQ(mad[2], 0x02);                              // class version
  EXPECT_EQ(mad[3], 0x03);                              // method: Send
  EXPECT_EQ(load_be64(mad + 8), 0x000000026DC5C064u);   // transaction ID
  EXPECT_EQ(load_be16(mad + 16), 0x0010);               // attribute: ConnectRequest
  EXPECT_EQ(load_be32(mad + 24), 0x64C0C56Du);          // local communication ID
  EXPECT_EQ(load_be64(mad + 32), 0x0000000001064853u);  // service ID: RDMA_PS_TCP, port 18515
}

TEST(Vectors, RxeFetchAddAtomicEth) {
  const ParseResult r = parse_ok(frame_of("rxe_rc_fetch_add"));
  EXPECT_EQ(r.packet.bth.opcode, 0x14);
  ASSERT_TRUE(r.packet.atomic_eth);
  EXPECT_EQ(r.packet.atomic_eth->virtual_address, 0x00006320D6BE5000u);
  EXPECT_EQ(r.packet.atomic_eth->rkey, 0x1986u);
  EXPECT_EQ(r.packet.atomic_eth->swap_add, 1u);
  EXPECT_EQ(r.packet.atomic_eth->compare, 0u);
  EXPECT_EQ(r.packet.payload_length, 0u);
}

TEST(Vectors, RxeAtomicAckOriginalData) {
  const ParseResult r = parse_ok(frame_of("rxe_rc_atomic_ack"));
  EXPECT_EQ(r.packet.bth.opcode, 0x12);
  ASSERT_TRUE(r.packet.aeth);
  EXPECT_EQ(r.packet.aeth->syndrome, 0x1F);
  EXPECT_EQ(r.packet.aeth->msn, 1u);
  ASSERT_TRUE(r.packet.atomic_ack_eth);
  EXPECT_EQ(r.packet.atomic_ack_eth->original_data, 0x3A01A68D6B397AC6u);
}

TEST(Vectors, SyntheticIpv6TrafficClassFlowLabelHopLimit) {
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

}  // namespace
}  // namespace rnicsim::packet
