// TCP/IPv4 frames and the NIC's TCP offloads: the header codec field by
// field, one frame whose checksums were worked out by hand (RFC 1071
// arithmetic, checked with tshark), the parser on every truncation and every
// inconsistent length, and TSO segments against the frame they came from.
#include "formats/tcp_header.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "formats/headers.hpp"
#include "nic/packet/tso.hpp"

namespace rnicsim::packet {
namespace {

using Bytes = std::vector<std::uint8_t>;

Bytes random_payload(std::size_t length, std::uint32_t seed) {
  std::mt19937 generator(seed);
  Bytes payload(length);
  for (auto& byte : payload) byte = static_cast<std::uint8_t>(generator());
  return payload;
}

// 10.0.0.1:40000 -> 10.0.0.2:12865 (netperf's control port), seq 1000, ack
// 2000, ACK|PSH, window 501, IP id 0x1234: the frame of KnownFrame.
TcpFrame known_headers() {
  TcpFrame headers;
  headers.ethernet.destination = {0x02, 0x00, 0x00, 0x00, 0x00, 0x02};
  headers.ethernet.source = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
  headers.ip.identification = 0x1234;
  headers.ip.source = 0x0A000001;
  headers.ip.destination = 0x0A000002;
  headers.tcp.source_port = 40000;
  headers.tcp.destination_port = 12865;
  headers.tcp.sequence = 1000;
  headers.tcp.acknowledgment = 2000;
  headers.tcp.psh = true;
  headers.tcp.window = 501;
  return headers;
}

// A frame of known_headers() with timestamps, an 802.1Q tag and `length`
// payload bytes.
TcpFrame tagged_headers_with_timestamps() {
  TcpFrame headers = known_headers();
  headers.ethernet.vlan_tci = 0x6005;
  headers.tcp.timestamps = true;
  headers.tcp.timestamp_value = 0x01020304;
  headers.tcp.timestamp_echo_reply = 0xA0B0C0D0;
  return headers;
}

// --- TcpHeader -------------------------------------------------------------

TEST(TcpHeader, EncodesEveryFieldAtItsOffset) {
  TcpHeader header;
  header.source_port = 0x1234;
  header.destination_port = 0x5678;
  header.sequence = 0x9ABCDEF0;
  header.acknowledgment = 0x0FEDCBA9;
  header.reserved = 0x5;
  header.cwr = header.urg = header.ack = header.rst = header.fin = true;
  header.ece = header.psh = header.syn = false;
  header.window = 0xBEEF;
  header.checksum = 0xCAFE;
  header.urgent_pointer = 0x0102;
  ASSERT_EQ(header.size(), 20u);
  Bytes out(20);
  header.encode(out.data());
  EXPECT_EQ(out, (Bytes{0x12, 0x34, 0x56, 0x78, 0x9A, 0xBC, 0xDE, 0xF0, 0x0F, 0xED,
                        0xCB, 0xA9, 0x55, 0xB5, 0xBE, 0xEF, 0xCA, 0xFE, 0x01, 0x02}));
  EXPECT_EQ(TcpHeader::decode(out.data(), out.size()), header);
}

TEST(TcpHeader, TimestampOptionAsLinuxSendsIt) {
  TcpHeader header;
  header.timestamps = true;
  header.timestamp_value = 0x11223344;
  header.timestamp_echo_reply = 0x55667788;
  ASSERT_EQ(header.size(), 32u);
  Bytes out(32);
  header.encode(out.data());
  EXPECT_EQ(out[12], 0x80);  // data offset 8 words
  EXPECT_EQ(out[13], 0x10);  // ACK
  EXPECT_EQ(Bytes(out.begin() + 20, out.end()),
            (Bytes{0x01, 0x01, 0x08, 0x0A, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88}));
  EXPECT_EQ(TcpHeader::decode(out.data(), out.size()), header);
}

TEST(TcpHeader, DecodeFindsTimestampsAmongOtherOptionsAndStopsAtEnd) {
  // MSS option (kind 2, length 4, 1460), timestamps, then End of options.
  Bytes segment(36, 0);
  TcpHeader fixed;
  fixed.encode(segment.data());
  segment[12] = 0x90;  // 9 words
  const Bytes options = {0x02, 0x04, 0x05, 0xB4, 0x08, 0x0A, 0, 0, 0, 7, 0, 0, 0, 9, 0x00, 0x42};
  std::copy(options.begin(), options.end(), segment.begin() + 20);
  const auto header = TcpHeader::decode(segment.data(), segment.size());
  ASSERT_TRUE(header);
  EXPECT_TRUE(header->timestamps);
  EXPECT_EQ(header->timestamp_value, 7u);
  EXPECT_EQ(header->timestamp_echo_reply, 9u);
  EXPECT_EQ(TcpHeader::data_offset_bytes(segment.data()), 36u);
}

TEST(TcpHeader, DecodeRejectsBadDataOffsetAndMalformedOptions) {
  Bytes segment(32, 0);
  TcpHeader header;
  header.timestamps = true;
  header.encode(segment.data());
  ASSERT_TRUE(TcpHeader::decode(segment.data(), 32));
  EXPECT_FALSE(TcpHeader::decode(segment.data(), 31));  // options cut off
  EXPECT_FALSE(TcpHeader::decode(segment.data(), 19));

  Bytes bad = segment;
  bad[12] = 0x40;  // data offset 4 words: shorter than the fixed header
  EXPECT_FALSE(TcpHeader::decode(bad.data(), bad.size()));

  bad = segment;
  bad[23] = 9;  // timestamp option length 9
  EXPECT_FALSE(TcpHeader::decode(bad.data(), bad.size()));
  bad[23] = 1;  // below 2
  EXPECT_FALSE(TcpHeader::decode(bad.data(), bad.size()));
  bad[23] = 13;  // runs past the header
  EXPECT_FALSE(TcpHeader::decode(bad.data(), bad.size()));
  bad = segment;
  std::fill(bad.begin() + 20, bad.end() - 1, 0x01);  // NOPs
  bad[31] = 0x03;  // a window scale option in the last byte, its length missing
  EXPECT_FALSE(TcpHeader::decode(bad.data(), bad.size()));
}

// --- One frame worked out by hand --------------------------------------------

// IPv4 header checksum: the words 4500 002C 1234 4000 4006 0A00 0001 0A00
// 0002 sum to 0xEB69, whose complement is 0x1496. TCP checksum: pseudo-header
// 0A00 0001 0A00 0002 0006 0018 (0x1421), header 9C40 3241 0000 03E8 0000
// 07D0 5018 01F5 0000 0000 (0x12C46) and payload 6162 6364 (0xC4C6) sum to
// 0x2052D, folded 0x052F, complement 0xFAD0. tshark -V reads this frame as
// "[Checksum Status: Good]" for both.
const Bytes kKnownFrame = {
    0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00,  // eth
    0x45, 0x00, 0x00, 0x2C, 0x12, 0x34, 0x40, 0x00, 0x40, 0x06, 0x14, 0x96,              // ip
    0x0A, 0x00, 0x00, 0x01, 0x0A, 0x00, 0x00, 0x02,                                      //
    0x9C, 0x40, 0x32, 0x41, 0x00, 0x00, 0x03, 0xE8, 0x00, 0x00, 0x07, 0xD0,              // tcp
    0x50, 0x18, 0x01, 0xF5, 0xFA, 0xD0, 0x00, 0x00,                                      //
    0x61, 0x62, 0x63, 0x64,                                                              // data
    0x00, 0x00};                                                                         // pad

TEST(TcpFrame, KnownFrameBytesAndChecksums) {
  const Bytes payload = {'a', 'b', 'c', 'd'};
  const Bytes frame = build_tcp_frame(known_headers(), payload.data(), payload.size());
  EXPECT_EQ(frame, kKnownFrame);
  EXPECT_EQ(ipv4_header_checksum(frame.data() + 14, 20), 0x1496);
  EXPECT_EQ(tcp_checksum(0x0A000001, 0x0A000002, frame.data() + 34, 24), 0xFAD0);
  EXPECT_TRUE(tcp_checksum_ok(0x0A000001, 0x0A000002, frame.data() + 34, 24));
  EXPECT_FALSE(tcp_checksum_ok(0x0A000001, 0x0A000003, frame.data() + 34, 24));
  EXPECT_TRUE(tcp_frame_checksum_ok(frame.data(), frame.size()));

  const auto parsed = parse_tcp_frame(frame.data(), frame.size());
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->ip_offset, 14u);
  EXPECT_EQ(parsed->tcp_offset, 34u);
  EXPECT_EQ(parsed->payload_offset, 54u);
  EXPECT_EQ(parsed->payload_length, 4u);  // the IP total length, not the padded frame
  EXPECT_EQ(parsed->ip.total_length, 44);
  EXPECT_EQ(parsed->ip.flags_fragment, kIpv4DontFragment);
  EXPECT_EQ(parsed->ip.ttl, 64);
  EXPECT_EQ(parsed->ip.protocol, kIpProtocolTcp);
}

TEST(TcpFrame, OddPayloadLengthChecksumsTheLastByteAsAHighByte) {
  // 'e' adds 0x6500: 0x2052D + 0x6500 + 1 (TCP length 25) = 0x26A2E, folded
  // 0x6A30, complement 0x95CF.
  const Bytes payload = {'a', 'b', 'c', 'd', 'e'};
  const Bytes frame = build_tcp_frame(known_headers(), payload.data(), payload.size());
  EXPECT_EQ(load_be16(frame.data() + 34 + 16), 0x95CF);
  EXPECT_TRUE(tcp_frame_checksum_ok(frame.data(), frame.size()));
}

TEST(TcpFrame, ChecksumOffloadLeavesTheFieldForTheNic) {
  const Bytes payload = random_payload(1448, 1);
  Bytes frame = build_tcp_frame(known_headers(), payload.data(), payload.size(), true);
  EXPECT_EQ(load_be16(frame.data() + 34 + 16), 0);
  EXPECT_FALSE(tcp_frame_checksum_ok(frame.data(), frame.size()));
  insert_tcp_checksum(frame);
  EXPECT_EQ(frame, build_tcp_frame(known_headers(), payload.data(), payload.size()));
  EXPECT_TRUE(tcp_frame_checksum_ok(frame.data(), frame.size()));
  Bytes not_tcp(60, 0);
  EXPECT_THROW(insert_tcp_checksum(not_tcp), std::invalid_argument);
}

TEST(TcpFrame, EveryCorruptedByteFailsTheChecksum) {
  const Bytes payload = random_payload(301, 2);
  const Bytes frame =
      build_tcp_frame(tagged_headers_with_timestamps(), payload.data(), payload.size());
  ASSERT_TRUE(tcp_frame_checksum_ok(frame.data(), frame.size()));
  const std::size_t ip_offset = 18;
  for (std::size_t at = ip_offset; at < frame.size(); ++at) {
    Bytes corrupted = frame;
    corrupted[at] ^= 0x01;
    // Bytes that change the IP version, lengths or protocol make it no TCP
    // frame at all; every other byte is caught by one of the two checksums.
    EXPECT_FALSE(tcp_frame_checksum_ok(corrupted.data(), corrupted.size())) << "byte " << at;
  }
}

TEST(TcpFrame, RoundTripWithVlanAndTimestamps) {
  const TcpFrame sent = tagged_headers_with_timestamps();
  const Bytes payload = random_payload(1448, 3);
  const Bytes frame = build_tcp_frame(sent, payload.data(), payload.size());
  ASSERT_EQ(frame.size(), 18u + 20 + 32 + 1448);
  const auto got = parse_tcp_frame(frame.data(), frame.size());
  ASSERT_TRUE(got);
  EXPECT_EQ(got->ethernet, sent.ethernet);
  EXPECT_EQ(got->ip.total_length, 20 + 32 + 1448);
  EXPECT_EQ(got->ip.identification, 0x1234);
  EXPECT_TRUE(ipv4_header_checksum_ok(frame.data() + 18, 20));
  TcpHeader want_tcp = sent.tcp;
  want_tcp.checksum = got->tcp.checksum;
  EXPECT_EQ(got->tcp, want_tcp);
  EXPECT_EQ(got->ip_offset, 18u);
  EXPECT_EQ(got->tcp_offset, 38u);
  EXPECT_EQ(got->payload_offset, 70u);
  EXPECT_EQ(got->payload_length, 1448u);
  EXPECT_TRUE(std::equal(payload.begin(), payload.end(), frame.begin() + 70));
  EXPECT_TRUE(tcp_frame_checksum_ok(frame.data(), frame.size()));
}

TEST(TcpFrame, EmptySegmentIsAMinimumSizeFrame) {
  const Bytes frame = build_tcp_frame(known_headers(), nullptr, 0);
  EXPECT_EQ(frame.size(), kEthernetMinimumFrameSize);
  const auto parsed = parse_tcp_frame(frame.data(), frame.size());
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->payload_length, 0u);
  EXPECT_TRUE(tcp_frame_checksum_ok(frame.data(), frame.size()));
}

TEST(TcpFrame, BuildRejectsAnIpPacketAbove65535Bytes) {
  const Bytes payload(65535 - 40, 0);
  EXPECT_NO_THROW(build_tcp_frame(known_headers(), payload.data(), payload.size()));
  EXPECT_THROW(build_tcp_frame(known_headers(), payload.data(), payload.size() + 1),
               std::invalid_argument);
}

TEST(TcpFrame, ParserRejectsEveryTruncation) {
  for (const std::size_t payload_length : {0, 4, 1448}) {
    const Bytes payload = random_payload(payload_length, 4);
    for (const TcpFrame& headers : {known_headers(), tagged_headers_with_timestamps()}) {
      const Bytes frame = build_tcp_frame(headers, payload.data(), payload.size());
      const std::size_t packet_end =
          headers.ethernet.size() + 20 + headers.tcp.size() + payload_length;
      for (std::size_t length = 0; length < frame.size(); ++length) {
        // A copy of exactly `length` bytes, so a read past it is a sanitizer error.
        const Bytes prefix(frame.begin(), frame.begin() + static_cast<std::ptrdiff_t>(length));
        EXPECT_EQ(parse_tcp_frame(prefix.data(), prefix.size()).has_value(), length >= packet_end)
            << "payload " << payload_length << " prefix " << length;
      }
    }
  }
}

TEST(TcpFrame, ParserRejectsWhatIsNotConsistentTcpOverIpv4) {
  const Bytes payload = random_payload(100, 5);
  const Bytes good = build_tcp_frame(known_headers(), payload.data(), payload.size());
  ASSERT_TRUE(parse_tcp_frame(good.data(), good.size()));
  const auto rejected = [&](std::size_t at, std::uint8_t value) {
    Bytes frame = good;
    frame[at] = value;
    return !parse_tcp_frame(frame.data(), frame.size()).has_value();
  };
  EXPECT_TRUE(rejected(12, 0x86));  // EtherType 0x8600
  EXPECT_TRUE(rejected(13, 0x06));  // ARP 0x0806
  EXPECT_TRUE(rejected(14, 0x65));  // IP version 6
  EXPECT_TRUE(rejected(14, 0x44));  // IHL 4
  EXPECT_TRUE(rejected(16, 0x01));  // total length 0x018C: beyond the frame
  EXPECT_TRUE(rejected(17, 0x13));  // total length 0x0013: below the IP header
  EXPECT_TRUE(rejected(17, 0x27));  // total length 39: TCP header cut short
  EXPECT_TRUE(rejected(20, 0x60));  // DF and MF: a fragment
  EXPECT_TRUE(rejected(21, 0x01));  // fragment offset 1
  EXPECT_TRUE(rejected(23, kIpProtocolUdp));
  EXPECT_TRUE(rejected(46, 0x40));  // TCP data offset 4
  Bytes empty = build_tcp_frame(known_headers(), nullptr, 0);
  empty[46] = 0x60;  // TCP data offset 6: beyond a 20-byte segment
  EXPECT_FALSE(parse_tcp_frame(empty.data(), empty.size()));
  // A shorter total length is a shorter payload, not an error.
  Bytes shorter = good;
  shorter[17] = static_cast<std::uint8_t>(shorter[17] - 10);
  const auto parsed = parse_tcp_frame(shorter.data(), shorter.size());
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->payload_length, 90u);
}

TEST(TcpFrame, ParserSkipsIpv4Options) {
  const Bytes payload = random_payload(10, 6);
  Bytes frame = build_tcp_frame(known_headers(), payload.data(), payload.size());
  // Four NOP options after the fixed IPv4 header: IHL 6, total length + 4.
  frame.insert(frame.begin() + 34, {0x01, 0x01, 0x01, 0x01});
  frame[14] = 0x46;
  store_be16(static_cast<std::uint16_t>(load_be16(frame.data() + 16) + 4), frame.data() + 16);
  store_be16(ipv4_header_checksum(frame.data() + 14, 24), frame.data() + 24);
  const auto parsed = parse_tcp_frame(frame.data(), frame.size());
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->tcp_offset, 38u);
  EXPECT_EQ(parsed->payload_offset, 58u);
  EXPECT_EQ(parsed->payload_length, 10u);
  EXPECT_EQ(parsed->tcp.sequence, 1000u);
  EXPECT_TRUE(tcp_frame_checksum_ok(frame.data(), frame.size()));  // the TCP checksum is unchanged
}

// --- TSO -----------------------------------------------------------------------

TEST(TcpTso, SegmentsCarryExactHeadersAndConcatenateToThePayload) {
  TcpFrame headers = tagged_headers_with_timestamps();
  headers.ip.identification = 0xFFFE;  // wraps after the second segment
  headers.tcp.sequence = 0xFFFFF000;   // wraps in the fourth
  headers.tcp.fin = headers.tcp.psh = headers.tcp.cwr = true;
  const std::uint32_t mss = 1448;
  const Bytes payload = random_payload(10000, 7);
  const Bytes frame = build_tcp_frame(headers, payload.data(), payload.size(), true);
  const std::vector<Bytes> segments = segment_tcp(frame.data(), frame.size(), mss);

  ASSERT_EQ(segments.size(), 7u);  // 6 x 1448 + 1312
  Bytes joined;
  for (std::size_t i = 0; i < segments.size(); ++i) {
    SCOPED_TRACE("segment " + std::to_string(i));
    const Bytes& segment = segments[i];
    const std::size_t length = i < 6 ? 1448 : 1312;
    EXPECT_EQ(segment.size(), 18 + 20 + 32 + length);
    EXPECT_TRUE(tcp_frame_checksum_ok(segment.data(), segment.size()));
    const auto got = parse_tcp_frame(segment.data(), segment.size());
    ASSERT_TRUE(got);
    EXPECT_EQ(got->ethernet, headers.ethernet);
    EXPECT_EQ(got->ip.total_length, 20 + 32 + length);
    EXPECT_EQ(got->ip.identification, static_cast<std::uint16_t>(0xFFFE + i));
    EXPECT_EQ(got->ip.flags_fragment, kIpv4DontFragment);
    EXPECT_EQ(got->ip.ttl, 64);

    TcpHeader want = headers.tcp;
    want.sequence = static_cast<std::uint32_t>(0xFFFFF000u + i * mss);
    want.fin = want.psh = i == 6;
    want.cwr = i == 0;
    want.checksum = got->tcp.checksum;
    EXPECT_EQ(got->tcp, want);
    EXPECT_EQ(got->payload_length, length);
    joined.insert(joined.end(), segment.begin() + static_cast<std::ptrdiff_t>(got->payload_offset),
                  segment.begin() + static_cast<std::ptrdiff_t>(got->payload_offset + length));
  }
  EXPECT_EQ(joined, payload);
}

TEST(TcpTso, ShortLastSegmentIsPaddedToTheMinimumFrame) {
  const Bytes payload = random_payload(1449, 8);
  const Bytes frame = build_tcp_frame(known_headers(), payload.data(), payload.size());
  const std::vector<Bytes> segments = segment_tcp(frame.data(), frame.size(), 1448);
  ASSERT_EQ(segments.size(), 2u);
  EXPECT_EQ(segments[0].size(), 14u + 40 + 1448);
  EXPECT_EQ(segments[1].size(), kEthernetMinimumFrameSize);  // 14 + 40 + 1 = 55, padded
  const auto last = parse_tcp_frame(segments[1].data(), segments[1].size());
  ASSERT_TRUE(last);
  EXPECT_EQ(last->payload_length, 1u);
  EXPECT_EQ(segments[1][last->payload_offset], payload.back());
  EXPECT_EQ(segments[1][last->payload_offset + 1], 0);
  EXPECT_TRUE(tcp_frame_checksum_ok(segments[1].data(), segments[1].size()));
  EXPECT_FALSE(parse_tcp_frame(segments[0].data(), segments[0].size())->tcp.psh);
  EXPECT_TRUE(last->tcp.psh);
}

TEST(TcpTso, PayloadWithinMssIsOneFrameWithItsChecksumFilled) {
  const Bytes payload = random_payload(1448, 9);
  const Bytes offloaded = build_tcp_frame(known_headers(), payload.data(), payload.size(), true);
  const std::vector<Bytes> segments = segment_tcp(offloaded.data(), offloaded.size(), 1448);
  ASSERT_EQ(segments.size(), 1u);
  EXPECT_EQ(segments[0], build_tcp_frame(known_headers(), payload.data(), payload.size()));
  const Bytes empty = build_tcp_frame(known_headers(), nullptr, 0);
  ASSERT_EQ(segment_tcp(empty.data(), empty.size(), 1448).size(), 1u);
}

TEST(TcpTso, RejectsMssZeroAndFramesThatAreNotTcp) {
  const Bytes frame = build_tcp_frame(known_headers(), nullptr, 0);
  EXPECT_THROW(segment_tcp(frame.data(), frame.size(), 0), std::invalid_argument);
  EXPECT_THROW(segment_tcp(frame.data(), 40, 1448), std::invalid_argument);
}

}  // namespace
}  // namespace rnicsim::packet
