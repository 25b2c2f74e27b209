// RoCEv2 packet codec without the kernel: build -> parse round trips over
// every supported opcode, payload size class, PMTU, IPv4/IPv6 and VLAN; the
// ICRC's coverage and masks bit by bit; one frame per receive check; and
// directed segmentation cases worked out by hand from the IBTA rules.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "formats/frame.hpp"
#include "formats/headers.hpp"
#include "formats/icrc.hpp"
#include "formats/opcodes.hpp"
#include "nic/packet/segmentation.hpp"
#include "random_packets.hpp"

namespace rnicsim::packet {
namespace {

using testbench::random_bytes;
using testbench::random_headers;
using testbench::supported_opcodes;

using Bytes = std::vector<std::uint8_t>;

constexpr std::uint32_t kPmtus[] = {256, 512, 1024, 2048, 4096};

std::size_t ip_header_size(const RocePacket& p) {
  return p.is_ipv6() ? Ipv6Header::kSize : Ipv4Header::kSize;
}

// Parses a frame build_frame made from `sent` and checks every field against
// `sent`, with the derived fields as build_frame must have computed them.
// Returns the parsed payload.
Bytes expect_round_trip(const RocePacket& sent, const Bytes& payload) {
  const Bytes frame = build_frame(sent, payload.data(), payload.size());
  const ParseResult r = parse_frame(frame.data(), frame.size());
  EXPECT_TRUE(r.ok()) << to_string(*r.error);
  EXPECT_TRUE(r.icrc_ok);
  if (!r.ok()) return {};
  const RocePacket& got = r.packet;
  const std::size_t l2 = sent.ethernet.size();
  const std::size_t l3 = ip_header_size(sent);
  const std::size_t pad = (4 - payload.size() % 4) % 4;

  RocePacket want = sent;
  want.ethernet.ether_type = sent.is_ipv6() ? kEtherTypeIpv6 : kEtherTypeIpv4;
  if (auto* v4 = std::get_if<Ipv4Header>(&want.ip)) {
    v4->total_length = static_cast<std::uint16_t>(frame.size() - l2);
    v4->checksum = std::get<Ipv4Header>(got.ip).checksum;  // valid, or parse would fail
  } else {
    std::get<Ipv6Header>(want.ip).payload_length =
        static_cast<std::uint16_t>(frame.size() - l2 - l3);
  }
  want.udp.length = static_cast<std::uint16_t>(frame.size() - l2 - l3);
  want.udp.checksum = 0;
  want.bth.pad_count = static_cast<std::uint8_t>(pad);

  EXPECT_EQ(got.ethernet, want.ethernet);
  EXPECT_EQ(got.ip, want.ip);
  EXPECT_EQ(got.udp, want.udp);
  EXPECT_EQ(got.bth, want.bth);
  EXPECT_EQ(got.reth, want.reth);
  EXPECT_EQ(got.aeth, want.aeth);
  EXPECT_EQ(got.atomic_eth, want.atomic_eth);
  EXPECT_EQ(got.atomic_ack_eth, want.atomic_ack_eth);
  EXPECT_EQ(got.imm_dt, want.imm_dt);
  EXPECT_EQ(got.ieth, want.ieth);
  EXPECT_EQ(got.deth, want.deth);
  const OpcodeInfo& info = *find_opcode(sent.bth.opcode);
  EXPECT_EQ(got.payload_offset, l2 + l3 + UdpHeader::kSize + Bth::kSize + info.ext_header_bytes());
  EXPECT_EQ(got.payload_length, payload.size());
  EXPECT_EQ(frame.size(), got.payload_offset + payload.size() + pad + kIcrcSize);
  for (std::size_t i = 0; i < pad; ++i)
    EXPECT_EQ(frame[got.payload_offset + payload.size() + i], 0);
  return Bytes(
      frame.begin() + static_cast<std::ptrdiff_t>(got.payload_offset),
      frame.begin() + static_cast<std::ptrdiff_t>(got.payload_offset + got.payload_length));
}

// --- CRC and opcode table -------------------------------------------------

TEST(Icrc, Crc32MatchesZlibCheckValueAndChains) {
  const std::string check = "123456789";
  const auto* data = reinterpret_cast<const std::uint8_t*>(check.data());
  EXPECT_EQ(crc32(data, check.size()), 0xCBF43926u);
  EXPECT_EQ(crc32(data + 4, 5, crc32(data, 4)), 0xCBF43926u);
  EXPECT_EQ(crc32(data, 0), 0u);
}

TEST(Opcodes, TableHoldsExactlyTheSupportedOpcodes) {
  std::vector<std::uint8_t> want;
  for (int op = 0x00; op <= 0x14; ++op) want.push_back(static_cast<std::uint8_t>(op));
  want.insert(want.end(), {0x16, 0x17});
  for (int op = 0x20; op <= 0x2B; ++op) want.push_back(static_cast<std::uint8_t>(op));
  want.insert(want.end(), {0x64, 0x65, 0x81});
  EXPECT_EQ(supported_opcodes(), want);
  for (const std::uint8_t op : {0x15, 0x18, 0x1C, 0x1D, 0x2C, 0x40, 0x66, 0x80, 0xA0, 0xE0}) {
    EXPECT_EQ(find_opcode(op), nullptr) << int{op};
  }
}

TEST(Opcodes, NamesTransportsAndPositions) {
  EXPECT_STREQ(find_opcode(0x00)->name, "RC SEND FIRST");
  EXPECT_STREQ(find_opcode(0x0A)->name, "RC RDMA WRITE ONLY");
  EXPECT_STREQ(find_opcode(0x0B)->name, "RC RDMA WRITE ONLY WITH IMMEDIATE");
  EXPECT_STREQ(find_opcode(0x11)->name, "RC ACKNOWLEDGE");
  EXPECT_STREQ(find_opcode(0x17)->name, "RC SEND ONLY WITH INVALIDATE");
  EXPECT_STREQ(find_opcode(0x29)->name, "UC RDMA WRITE LAST WITH IMMEDIATE");
  EXPECT_STREQ(find_opcode(0x64)->name, "UD SEND ONLY");
  EXPECT_STREQ(find_opcode(0x81)->name, "CNP");
  std::set<std::string> names;
  for (const std::uint8_t op : supported_opcodes()) {
    const OpcodeInfo& info = *find_opcode(op);
    EXPECT_EQ(info.opcode, op);
    names.insert(info.name);
    const int bits = op >> 5;  // 0 RC, 1 UC, 3 UD, 4 CNP
    const Transport want = bits == 0   ? Transport::kRc
                           : bits == 1 ? Transport::kUc
                           : bits == 3 ? Transport::kUd
                                       : Transport::kCnp;
    EXPECT_TRUE(bits == 0 || bits == 1 || bits == 3 || bits == 4) << int{op};
    EXPECT_EQ(info.transport, want) << int{op};
  }
  EXPECT_EQ(names.size(), supported_opcodes().size());
  EXPECT_EQ(find_opcode(0x06)->position, MessagePosition::kFirst);
  EXPECT_EQ(find_opcode(0x0E)->position, MessagePosition::kMiddle);
  EXPECT_EQ(find_opcode(0x16)->position, MessagePosition::kLast);
  EXPECT_EQ(find_opcode(0x65)->position, MessagePosition::kOnly);
}

TEST(Opcodes, HeaderOrderAndLengthsFollowRxe) {
  // REFERENCE section 4: header bytes after the BTH.
  EXPECT_EQ(find_opcode(0x11)->ext_header_bytes(), 4u);   // ACK
  EXPECT_EQ(find_opcode(0x12)->ext_header_bytes(), 12u);  // ATOMIC ACK
  EXPECT_EQ(find_opcode(0x13)->ext_header_bytes(), 28u);  // COMPARE & SWAP
  EXPECT_EQ(find_opcode(0x14)->ext_header_bytes(), 28u);  // FETCH & ADD
  EXPECT_EQ(find_opcode(0x0C)->ext_header_bytes(), 16u);  // READ REQUEST
  EXPECT_EQ(find_opcode(0x0B)->ext_header_bytes(), 20u);  // WRITE ONLY IMM
  EXPECT_EQ(find_opcode(0x0E)->ext_header_bytes(), 0u);   // READ RESPONSE MIDDLE: no AETH
  EXPECT_EQ(find_opcode(0x81)->ext_header_bytes(), 16u);  // CNP reserved bytes
  const auto order = [](std::uint8_t op) {
    const OpcodeInfo& info = *find_opcode(op);
    return std::vector<ExtHeader>(info.headers.begin(), info.headers.begin() + info.header_count);
  };
  EXPECT_EQ(order(0x0B), (std::vector<ExtHeader>{ExtHeader::kReth, ExtHeader::kImmDt}));
  EXPECT_EQ(order(0x12), (std::vector<ExtHeader>{ExtHeader::kAeth, ExtHeader::kAtomicAckEth}));
  EXPECT_EQ(order(0x65), (std::vector<ExtHeader>{ExtHeader::kDeth, ExtHeader::kImmDt}));
  EXPECT_EQ(order(0x16), (std::vector<ExtHeader>{ExtHeader::kIeth}));
  EXPECT_EQ(order(0x02), (std::vector<ExtHeader>{}));
}

TEST(Opcodes, PayloadRules) {
  EXPECT_TRUE(payload_length_ok(PayloadRule::kExactlyPmtu, 1024, 1024));
  EXPECT_FALSE(payload_length_ok(PayloadRule::kExactlyPmtu, 1020, 1024));
  EXPECT_FALSE(payload_length_ok(PayloadRule::kExactlyPmtu, 2048, 1024));
  EXPECT_TRUE(payload_length_ok(PayloadRule::kExactlyPmtu, 2048, 0));  // PMTU unknown
  EXPECT_FALSE(payload_length_ok(PayloadRule::kExactlyPmtu, 1000, 0));
  EXPECT_FALSE(payload_length_ok(PayloadRule::kExactlyPmtu, 8192, 0));
  EXPECT_FALSE(payload_length_ok(PayloadRule::kOneToPmtu, 0, 256));
  EXPECT_TRUE(payload_length_ok(PayloadRule::kOneToPmtu, 256, 256));
  EXPECT_FALSE(payload_length_ok(PayloadRule::kOneToPmtu, 257, 256));
  EXPECT_TRUE(payload_length_ok(PayloadRule::kZeroToPmtu, 0, 256));
  EXPECT_TRUE(payload_length_ok(PayloadRule::kZeroToPmtu, 4096, 0));
  EXPECT_FALSE(payload_length_ok(PayloadRule::kZeroToPmtu, 4097, 0));
  EXPECT_TRUE(payload_length_ok(PayloadRule::kNone, 0, 4096));
  EXPECT_FALSE(payload_length_ok(PayloadRule::kNone, 4, 4096));
  for (const std::uint32_t pmtu : kPmtus) EXPECT_TRUE(is_valid_pmtu(pmtu));
  for (const std::uint32_t pmtu : {0u, 128u, 1000u, 1500u, 8192u})
    EXPECT_FALSE(is_valid_pmtu(pmtu));
}

// --- Round trips ----------------------------------------------------------

TEST(PacketCodec, EveryOpcodeRoundTripsAtEveryLegalSize) {
  std::mt19937_64 rng(0x5EED);
  int frames = 0;
  for (const std::uint8_t op : supported_opcodes()) {
    const OpcodeInfo& info = *find_opcode(op);
    for (const std::uint32_t pmtu : kPmtus) {
      const std::size_t sizes[] = {
          0,       1, 2, 3, 4, 5, 7, 8, 13, pmtu / 2 + 1, pmtu - 1, pmtu, pmtu + 1, 2 * pmtu - 1,
          2 * pmtu};
      for (const std::size_t size : sizes) {
        if (!payload_length_ok(info.payload, size, pmtu)) continue;
        for (int variant = 0; variant < 4; ++variant) {
          SCOPED_TRACE(std::string(info.name) + " pmtu " + std::to_string(pmtu) + " size " +
                       std::to_string(size) + " variant " + std::to_string(variant));
          const RocePacket sent = random_headers(op, (variant & 1) != 0, (variant & 2) != 0, rng);
          const Bytes payload = random_bytes(rng, size);
          EXPECT_EQ(expect_round_trip(sent, payload), payload);
          ++frames;
        }
      }
    }
  }
  EXPECT_GT(frames, 2000);
}

TEST(PacketCodec, SegmentedMessagesRoundTripAndReassemble) {
  std::mt19937_64 rng(0xC0DEC);
  struct Legal {
    MessageKind kind;
    Transport transport;
  };
  const Legal legal[] = {
      {MessageKind::kSend, Transport::kRc},
      {MessageKind::kSendWithImm, Transport::kRc},
      {MessageKind::kSendWithInvalidate, Transport::kRc},
      {MessageKind::kRdmaWrite, Transport::kRc},
      {MessageKind::kRdmaWriteWithImm, Transport::kRc},
      {MessageKind::kRdmaReadResponse, Transport::kRc},
      {MessageKind::kSend, Transport::kUc},
      {MessageKind::kSendWithImm, Transport::kUc},
      {MessageKind::kRdmaWrite, Transport::kUc},
      {MessageKind::kRdmaWriteWithImm, Transport::kUc},
      {MessageKind::kSend, Transport::kUd},
      {MessageKind::kSendWithImm, Transport::kUd},
  };
  for (const Legal& l : legal) {
    for (const std::uint32_t pmtu : kPmtus) {
      const std::size_t max = l.transport == Transport::kUd ? pmtu : 2 * pmtu + 3;
      for (const std::size_t length :
           {std::size_t{0}, std::size_t{1}, std::size_t{pmtu - 1}, std::size_t{pmtu},
            std::size_t{pmtu + 1}, std::size_t{2 * pmtu}, std::size_t{2 * pmtu + 3}}) {
        if (length > max) continue;
        SCOPED_TRACE("kind " + std::to_string(static_cast<int>(l.kind)) + " transport " +
                     std::to_string(static_cast<int>(l.transport)) + " pmtu " +
                     std::to_string(pmtu) + " length " + std::to_string(length));
        const Bytes message = random_bytes(rng, length);
        const std::uint32_t first_psn = 0xFFFFFE;  // wraps within every multi-packet message
        Bytes reassembled;
        for (const SegmentedPacket& s :
             segment_message(l.kind, l.transport, pmtu, first_psn, length)) {
          const OpcodeInfo& info = *find_opcode(s.opcode);
          EXPECT_TRUE(payload_length_ok(info.payload, s.payload_length, pmtu)) << info.name;
          RocePacket sent = random_headers(s.opcode, rng() % 2 == 0, rng() % 2 == 0, rng);
          EXPECT_EQ(sent.reth.has_value(), s.has_reth);
          EXPECT_EQ(sent.imm_dt.has_value(), s.has_imm_dt);
          EXPECT_EQ(sent.ieth.has_value(), s.has_ieth);
          EXPECT_EQ(sent.aeth.has_value(), s.has_aeth);
          EXPECT_EQ(sent.deth.has_value(), s.has_deth);
          sent.bth.psn = s.psn;
          sent.bth.ack_req = s.ack_req;
          const Bytes slice(
              message.begin() + static_cast<std::ptrdiff_t>(s.payload_offset),
              message.begin() + static_cast<std::ptrdiff_t>(s.payload_offset + s.payload_length));
          const Bytes got = expect_round_trip(sent, slice);
          reassembled.insert(reassembled.end(), got.begin(), got.end());
        }
        EXPECT_EQ(reassembled, message);
      }
    }
  }
}

TEST(PacketCodec, BuildRejectsIllegalPacketsAndComputesDerivedFields) {
  std::mt19937_64 rng(7);
  const Bytes four(4, 0xAB);
  const Bytes big(4097, 0xAB);
  const Bytes hundred(100, 0xAB);
  // ACK with payload, SEND FIRST not a PMTU, SEND LAST empty, SEND ONLY > 4096.
  EXPECT_THROW(build_frame(random_headers(0x11, false, false, rng), four.data(), 4),
               std::invalid_argument);
  EXPECT_THROW(build_frame(random_headers(0x00, false, false, rng), hundred.data(), 100),
               std::invalid_argument);
  EXPECT_THROW(build_frame(random_headers(0x02, false, false, rng), nullptr, 0),
               std::invalid_argument);
  EXPECT_THROW(build_frame(random_headers(0x04, false, false, rng), big.data(), big.size()),
               std::invalid_argument);
  RocePacket p = random_headers(0x0A, false, false, rng);  // WRITE ONLY needs its RETH
  p.reth.reset();
  EXPECT_THROW(build_frame(p, nullptr, 0), std::invalid_argument);
  p = random_headers(0x04, false, false, rng);  // SEND ONLY must not carry one
  p.reth = Reth{};
  EXPECT_THROW(build_frame(p, nullptr, 0), std::invalid_argument);
  p.reth.reset();
  p.bth.opcode = 0x15;
  EXPECT_THROW(build_frame(p, nullptr, 0), std::invalid_argument);

  // Smallest RoCEv2 IPv4 frame: ACK = 14 + 20 + 8 + 12 + 4 + 4 = 62 B (REFERENCE section 1).
  const Bytes ack = build_frame(random_headers(0x11, false, false, rng), nullptr, 0);
  EXPECT_EQ(ack.size(), 62u);
  EXPECT_EQ(load_be16(ack.data() + 14 + 2), 48);  // IPv4 total length includes the ICRC
  EXPECT_EQ(load_be16(ack.data() + 34 + 4), 28);  // so does the UDP length
  EXPECT_EQ(load_be16(ack.data() + 34 + 6), 0);   // UDP checksum
  EXPECT_TRUE(ipv4_header_checksum_ok(ack.data() + 14, 20));
  // 18 B payload: pad 2, on the wire 20 B (rxe WRITE ONLY, REFERENCE section 1).
  const Bytes data(18, 0x5A);
  const Bytes write = build_frame(random_headers(0x0A, false, true, rng), data.data(), 18);
  EXPECT_EQ(write.size(), 18u + 20 + 8 + 12 + 16 + 20 + 4);
  EXPECT_EQ((write[18 + 20 + 8 + 1] >> 4) & 3, 2);
  // IPv6: the payload length counts UDP through ICRC.
  const Bytes v6 = build_frame(random_headers(0x04, true, false, rng), data.data(), 8);
  EXPECT_EQ(load_be16(v6.data() + 14 + 4), 8 + 12 + 8 + 4);
}

TEST(PacketCodec, L2PaddingAfterTheIpPacketIsIgnored) {
  std::mt19937_64 rng(11);
  Bytes frame = build_frame(random_headers(0x11, false, false, rng), nullptr, 0);
  frame.resize(frame.size() + 10, 0xEE);
  const ParseResult r = parse_frame(frame.data(), frame.size());
  EXPECT_TRUE(r.ok());
  EXPECT_TRUE(r.icrc_ok);
}

TEST(PacketCodec, Ipv4OptionsAreSkippedAndCovered) {
  std::mt19937_64 rng(13);
  const RocePacket sent = random_headers(0x0A, false, false, rng);
  const Bytes payload = random_bytes(rng, 9);
  const Bytes plain = build_frame(sent, payload.data(), payload.size());
  // Insert one word of options (4 x NOP): IHL 6, total length + 4; the ICRC
  // covers the options, and its masks move with the UDP header.
  const std::size_t l2 = 14;
  Bytes frame(plain.begin(), plain.begin() + l2 + 20);
  frame.insert(frame.end(), {1, 1, 1, 1});
  frame.insert(frame.end(), plain.begin() + l2 + 20, plain.end());
  frame[l2] = 0x46;
  store_be16(static_cast<std::uint16_t>(load_be16(frame.data() + l2 + 2) + 4),
             frame.data() + l2 + 2);
  frame[l2 + 10] = frame[l2 + 11] = 0;
  store_be16(ipv4_header_checksum(frame.data() + l2, 24), frame.data() + l2 + 10);
  store_icrc(compute_icrc(frame.data() + l2, frame.size() - l2 - kIcrcSize),
             frame.data() + frame.size() - kIcrcSize);

  ParseResult r = parse_frame(frame.data(), frame.size());
  ASSERT_TRUE(r.ok()) << to_string(*r.error);
  const ParseResult p = parse_frame(plain.data(), plain.size());
  EXPECT_EQ(r.packet.payload_offset, p.packet.payload_offset + 4);
  EXPECT_EQ(r.packet.payload_length, payload.size());
  EXPECT_EQ(r.packet.reth, sent.reth);
  EXPECT_EQ(r.packet.bth, p.packet.bth);
  EXPECT_TRUE(std::equal(payload.begin(), payload.end(),
                         frame.begin() + static_cast<std::ptrdiff_t>(r.packet.payload_offset)));

  Bytes flipped = frame;
  flipped[l2 + 24 + 7] ^= 0x10;      // UDP checksum: masked
  flipped[l2 + 24 + 8 + 4] ^= 0x80;  // FECN: masked
  r = parse_frame(flipped.data(), flipped.size());
  EXPECT_TRUE(r.ok());
  flipped = frame;
  flipped[l2 + 21] ^= 0x01;  // an option byte: covered
  flipped[l2 + 10] = flipped[l2 + 11] = 0;
  store_be16(ipv4_header_checksum(flipped.data() + l2, 24), flipped.data() + l2 + 10);
  r = parse_frame(flipped.data(), flipped.size());
  EXPECT_EQ(r.error, ParseError::kIcrcMismatch);
}

// --- ICRC coverage and masks ----------------------------------------------

// Frames of different shapes for the bit-by-bit tests.
std::vector<RocePacket> bit_flip_frames(std::vector<Bytes>& payloads) {
  std::mt19937_64 rng(0xF11F);
  std::vector<RocePacket> packets = {
      random_headers(0x05, false, false, rng),  // SEND ONLY IMM, IPv4
      random_headers(0x0B, true, true, rng),    // WRITE ONLY IMM, IPv6 + VLAN
      random_headers(0x12, false, true, rng),   // ATOMIC ACK, IPv4 + VLAN
      random_headers(0x81, false, false, rng),  // CNP
      random_headers(0x65, true, false, rng),   // UD SEND ONLY IMM, IPv6
      // 128 bytes and longer: the ICRC masks the head as the CRC reads it, and
      // the rest goes through the CRC's bulk path.
      random_headers(0x0A, false, false, rng),  // WRITE ONLY, IPv4
      random_headers(0x04, true, true, rng),    // SEND ONLY, IPv6 + VLAN
  };
  payloads = {
      random_bytes(rng, 13),  random_bytes(rng, 6),   Bytes{}, Bytes{}, random_bytes(rng, 64),
      random_bytes(rng, 300), random_bytes(rng, 1021)};
  return packets;
}

TEST(Icrc, EverySingleBitFlipIsCaughtExceptInMaskedFields) {
  std::vector<Bytes> payloads;
  const std::vector<RocePacket> packets = bit_flip_frames(payloads);
  for (std::size_t f = 0; f < packets.size(); ++f) {
    const RocePacket& p = packets[f];
    const Bytes frame = build_frame(p, payloads[f].data(), payloads[f].size());
    const std::size_t l2 = p.ethernet.size();
    const std::size_t udp = l2 + ip_header_size(p);
    const std::set<std::size_t> ipv6_masked = {l2 + 1, l2 + 2, l2 + 3, l2 + 7};
    const std::set<std::size_t> ipv4_masked = {l2 + 1, l2 + 8, l2 + 10, l2 + 11};
    for (std::size_t byte = 0; byte < frame.size(); ++byte) {
      for (int b = 0; b < 8; ++b) {
        SCOPED_TRACE("frame " + std::to_string(f) + " byte " + std::to_string(byte) + " bit " +
                     std::to_string(b));
        Bytes flipped = frame;
        flipped[byte] ^= static_cast<std::uint8_t>(1u << b);
        const ParseResult r = parse_frame(flipped.data(), flipped.size());
        const bool mac_or_tag = byte < 12 || (p.ethernet.vlan_tci && (byte == 14 || byte == 15));
        const bool masked =
            byte == udp + 6 || byte == udp + 7 || byte == udp + 8 + 4 ||
            (p.is_ipv6() && (ipv6_masked.count(byte) != 0 || (byte == l2 && b < 4)));
        if (!p.is_ipv6() && ipv4_masked.count(byte) != 0) {
          EXPECT_FALSE(r.ok());  // the IPv4 checksum catches these; masks tested below
        } else if (mac_or_tag || masked) {
          EXPECT_TRUE(r.ok());
          EXPECT_TRUE(r.icrc_ok);
        } else {
          EXPECT_FALSE(r.ok());
          EXPECT_FALSE(r.icrc_ok);
        }
      }
    }
  }
}

TEST(Icrc, MasksCoverExactlyTheVariantFields) {
  std::vector<Bytes> payloads;
  const std::vector<RocePacket> packets = bit_flip_frames(payloads);
  for (std::size_t f = 0; f < packets.size(); ++f) {
    const RocePacket& p = packets[f];
    const Bytes frame = build_frame(p, payloads[f].data(), payloads[f].size());
    const std::uint8_t* ip = frame.data() + p.ethernet.size();
    const std::size_t length = frame.size() - p.ethernet.size() - kIcrcSize;
    const std::uint32_t icrc = compute_icrc(ip, length);
    EXPECT_EQ(icrc, load_icrc(frame.data() + frame.size() - kIcrcSize));
    const std::size_t udp = ip_header_size(p);
    // REFERENCE section 6: IPv4 {1, 8, 10, 11, 26, 27, 32} from the IP header.
    std::set<std::size_t> masked = {udp + 6, udp + 7, udp + 12};
    if (p.is_ipv6()) {
      masked.insert({1, 2, 3, 7});
    } else {
      masked.insert({1, 8, 10, 11});
    }
    for (std::size_t byte = 0; byte < length; ++byte) {
      for (int b = 0; b < 8; ++b) {
        Bytes copy(ip, ip + length);
        copy[byte] ^= static_cast<std::uint8_t>(1u << b);
        const bool is_masked = masked.count(byte) != 0 || (p.is_ipv6() && byte == 0 && b < 4);
        // A changed IP version or IHL may stop the computation altogether.
        bool same = false;
        try {
          same = compute_icrc(copy.data(), length) == icrc;
        } catch (const std::invalid_argument&) {
          EXPECT_EQ(byte, 0u);
        }
        EXPECT_EQ(same, is_masked) << "frame " << f << " byte " << byte << " bit " << b;
      }
    }
  }
}

TEST(Icrc, RejectsWhatIsNotAnIpPacketWithRoceHeaders) {
  const Bytes v4(60, 0);
  Bytes bad = v4;
  bad[0] = 0x45;
  EXPECT_THROW(compute_icrc(bad.data(), 39), std::invalid_argument);  // needs 20 + 8 + 12
  EXPECT_NO_THROW(compute_icrc(bad.data(), 40));
  bad[0] = 0x44;
  EXPECT_THROW(compute_icrc(bad.data(), 60), std::invalid_argument);
  bad[0] = 0x55;
  EXPECT_THROW(compute_icrc(bad.data(), 60), std::invalid_argument);
  bad[0] = 0x60;
  EXPECT_THROW(compute_icrc(bad.data(), 59), std::invalid_argument);
  EXPECT_NO_THROW(compute_icrc(bad.data(), 60));
  EXPECT_THROW(compute_icrc(bad.data(), 0), std::invalid_argument);
}

TEST(Icrc, WireOrderIsLittleEndian) {
  std::uint8_t wire[4];
  store_icrc(0x3D565B79, wire);  // rdma_write_lat.pcap frame 24 (rxe ACK): wire 79 5b 56 3d
  EXPECT_EQ(wire[0], 0x79);
  EXPECT_EQ(wire[1], 0x5B);
  EXPECT_EQ(wire[2], 0x56);
  EXPECT_EQ(wire[3], 0x3D);
  EXPECT_EQ(load_icrc(wire), 0x3D565B79u);
}

// --- One frame per receive check ------------------------------------------

struct Mutated {
  ParseError expected;
  std::string what;
  Bytes frame;
};

void fix_ipv4_checksum(Bytes& frame, std::size_t l2) {
  frame[l2 + 10] = frame[l2 + 11] = 0;
  store_be16(ipv4_header_checksum(frame.data() + l2, 20), frame.data() + l2 + 10);
}

std::vector<Mutated> error_frames() {
  std::mt19937_64 rng(0xBAD);
  const auto build = [&rng](std::uint8_t op, bool ipv6, bool vlan, std::size_t size) {
    return build_frame(random_headers(op, ipv6, vlan, rng), random_bytes(rng, size).data(), size);
  };
  const std::size_t l2 = 14;
  const std::size_t udp4 = l2 + 20;
  const std::size_t bth4 = udp4 + 8;
  std::vector<Mutated> cases;
  const auto add = [&cases](ParseError e, const std::string& what, Bytes frame) {
    cases.push_back({e, what, std::move(frame)});
  };

  const Bytes send = build(0x04, false, false, 8);  // RC SEND ONLY, IPv4, 8 B
  const Bytes send6 = build(0x04, true, false, 8);
  const Bytes tagged = build(0x04, false, true, 8);
  add(ParseError::kTruncatedEthernet, "empty", {});
  add(ParseError::kTruncatedEthernet, "13 B", Bytes(send.begin(), send.begin() + 13));
  add(ParseError::kTruncatedEthernet, "tag cut", Bytes(tagged.begin(), tagged.begin() + 17));

  Bytes f = send;
  store_be16(0x0806, f.data() + 12);
  add(ParseError::kUnsupportedEtherType, "ARP", f);
  f = tagged;
  store_be16(kEtherTypeVlan, f.data() + 16);
  add(ParseError::kUnsupportedEtherType, "second 802.1Q tag", f);

  f = send;
  f[l2] = 0x65;
  add(ParseError::kIpVersion, "version 6 under EtherType IPv4", f);
  f = send6;
  f[l2] = static_cast<std::uint8_t>(0x40 | (f[l2] & 0xF));
  add(ParseError::kIpVersion, "version 4 under EtherType IPv6", f);

  f = send;
  f[l2 + 4] ^= 1;
  add(ParseError::kIpv4Checksum, "identification changed", f);

  add(ParseError::kIpLength, "no IP header", Bytes(send.begin(), send.begin() + 14));
  add(ParseError::kIpLength, "IPv4 header cut", Bytes(send.begin(), send.begin() + 30));
  add(ParseError::kIpLength, "IPv6 header cut", Bytes(send6.begin(), send6.begin() + 50));
  add(ParseError::kIpLength, "IPv4 frame 1 B short", Bytes(send.begin(), send.end() - 1));
  add(ParseError::kIpLength, "IPv6 frame 1 B short", Bytes(send6.begin(), send6.end() - 1));
  f = send;
  f[l2] = 0x44;
  fix_ipv4_checksum(f, l2);
  add(ParseError::kIpLength, "IHL 4", f);
  f = send;
  store_be16(19, f.data() + l2 + 2);
  fix_ipv4_checksum(f, l2);
  add(ParseError::kIpLength, "total length below the header", f);
  f = send;
  store_be16(kIpv4DontFragment | kIpv4MoreFragments, f.data() + l2 + 6);
  fix_ipv4_checksum(f, l2);
  add(ParseError::kIpv4Fragment, "more fragments", f);
  f = send;
  store_be16(0x0001, f.data() + l2 + 6);  // offset 8 B, the last fragment
  fix_ipv4_checksum(f, l2);
  add(ParseError::kIpv4Fragment, "fragment offset", f);

  f = send;
  f[l2 + 9] = 6;
  fix_ipv4_checksum(f, l2);
  add(ParseError::kNotUdp, "TCP", f);
  f = send6;
  f[l2 + 6] = 6;
  add(ParseError::kNotUdp, "IPv6 next header TCP", f);

  f = send;
  store_be16(4792, f.data() + udp4 + 2);
  add(ParseError::kUdpPort, "port 4792", f);

  f = send;
  store_be16(static_cast<std::uint16_t>(load_be16(f.data() + udp4 + 4) - 4), f.data() + udp4 + 4);
  add(ParseError::kUdpLength, "UDP length 4 short of the IP payload", f);
  const Bytes empty_send = build(0x04, false, false, 0);  // UDP length 24: the minimum
  f = empty_send;
  store_be16(static_cast<std::uint16_t>(load_be16(f.data() + l2 + 2) - 4), f.data() + l2 + 2);
  fix_ipv4_checksum(f, l2);
  store_be16(20, f.data() + udp4 + 4);
  add(ParseError::kUdpLength, "UDP too short for BTH + ICRC", f);
  f = send;
  store_be16(20 + 4, f.data() + l2 + 2);
  fix_ipv4_checksum(f, l2);
  add(ParseError::kUdpLength, "IP payload shorter than a UDP header", f);

  f = send;
  f[bth4 + 1] |= 1;
  add(ParseError::kBthVersion, "TVer 1", f);

  for (const std::uint8_t op : {0x15, 0x1C, 0x66, 0x80, 0xE0}) {
    f = send;
    f[bth4] = op;
    add(ParseError::kUnsupportedOpcode, "opcode " + std::to_string(op), f);
  }

  f = empty_send;
  f[bth4] = 0x0C;  // READ REQUEST needs a 16 B RETH
  add(ParseError::kHeaderLength, "READ REQUEST without RETH", f);
  f = send;
  f[bth4] = 0x13;  // COMPARE & SWAP needs 28 B, the SEND carried 8
  add(ParseError::kHeaderLength, "short AtomicETH", f);

  f = empty_send;
  f[bth4 + 1] |= 0x10;
  add(ParseError::kPad, "pad 1 with no data", f);
  f = build(0x04, false, false, 20);
  f[bth4] = 0x0C;  // READ REQUEST: RETH takes 16 B, 4 B left
  f[bth4 + 1] |= 0x30;
  add(ParseError::kPad, "pad on an opcode without payload", f);
  f = send;
  store_be16(static_cast<std::uint16_t>(load_be16(f.data() + l2 + 2) - 1), f.data() + l2 + 2);
  fix_ipv4_checksum(f, l2);
  store_be16(static_cast<std::uint16_t>(load_be16(f.data() + udp4 + 4) - 1), f.data() + udp4 + 4);
  add(ParseError::kPad, "payload + pad not a multiple of 4", f);

  f = send;
  f[bth4] = 0x11;  // ACK: AETH takes 4 of the 8 B, 4 B of payload remain
  add(ParseError::kPayloadLength, "ACK with payload", f);
  f = build(0x04, false, false, 100);
  f[bth4] = 0x00;
  add(ParseError::kPayloadLength, "SEND FIRST of 100 B", f);
  f = empty_send;
  f[bth4] = 0x02;
  add(ParseError::kPayloadLength, "empty SEND LAST", f);

  f = send;
  f[f.size() - 6] ^= 0x80;  // a payload byte
  add(ParseError::kIcrcMismatch, "payload bit", f);
  f = send6;
  f.back() ^= 1;
  add(ParseError::kIcrcMismatch, "ICRC bit, IPv6", f);
  return cases;
}

TEST(FrameParse, EachCheckHasAFrameThatFailsIt) {
  std::set<ParseError> seen;
  for (const Mutated& m : error_frames()) {
    SCOPED_TRACE(m.what);
    // An exactly sized copy, so that ASan sees any read past the end.
    const Bytes exact(m.frame);
    const ParseResult r = parse_frame(exact.data(), exact.size());
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(*r.error, m.expected)
        << to_string(*r.error) << " instead of " << to_string(m.expected);
    EXPECT_EQ(r.icrc_ok, false);
    seen.insert(m.expected);
  }
  EXPECT_EQ(seen.size(), kParseErrorCount);
}

TEST(FrameParse, IcrcMismatchStillReportsTheHeaders) {
  std::mt19937_64 rng(3);
  const RocePacket sent = random_headers(0x0A, false, false, rng);
  Bytes frame = build_frame(sent, nullptr, 0);
  const std::uint32_t good = load_icrc(frame.data() + frame.size() - 4);
  frame.back() ^= 0xFF;
  const ParseResult r = parse_frame(frame.data(), frame.size());
  ASSERT_EQ(r.error, ParseError::kIcrcMismatch);
  EXPECT_EQ(r.icrc_computed, good);
  EXPECT_EQ(r.icrc_received, good ^ 0xFF000000u);
  EXPECT_EQ(r.packet.reth, sent.reth);
  EXPECT_EQ(r.packet.bth.psn, sent.bth.psn);
}

TEST(FrameParse, ErrorNamesAreDistinct) {
  std::set<std::string> names;
  for (int e = 0; e <= static_cast<int>(ParseError::kIcrcMismatch); ++e) {
    names.insert(to_string(static_cast<ParseError>(e)));
  }
  EXPECT_EQ(names.size(), static_cast<std::size_t>(ParseError::kIcrcMismatch) + 1);
}

// --- Segmentation ---------------------------------------------------------

SegmentedPacket seg(std::uint8_t opcode, std::uint32_t psn, std::uint64_t offset,
                    std::uint32_t length) {
  SegmentedPacket p;
  p.opcode = opcode;
  p.psn = psn;
  p.payload_offset = offset;
  p.payload_length = length;
  return p;
}

TEST(Segmentation, SendSplitsAtPmtuAndWrapsThePsn) {
  auto last = seg(0x02, 0x000000, 2048, 952);
  last.ack_req = true;
  EXPECT_EQ(segment_message(MessageKind::kSend, Transport::kRc, 1024, 0xFFFFFE, 3000),
            (std::vector<SegmentedPacket>{seg(0x00, 0xFFFFFE, 0, 1024),
                                          seg(0x01, 0xFFFFFF, 1024, 1024), last}));
}

TEST(Segmentation, ZeroLengthAndSinglePacketMessagesAreOnly) {
  auto only = seg(0x04, 5, 0, 0);
  only.ack_req = true;
  EXPECT_EQ(segment_message(MessageKind::kSend, Transport::kRc, 256, 5, 0),
            std::vector<SegmentedPacket>{only});
  auto write_imm = seg(0x0B, 7, 0, 1024);
  write_imm.has_reth = write_imm.has_imm_dt = write_imm.ack_req = true;
  EXPECT_EQ(segment_message(MessageKind::kRdmaWriteWithImm, Transport::kRc, 1024, 7, 1024),
            std::vector<SegmentedPacket>{write_imm});
  auto read = seg(0x10, 9, 0, 0);
  read.has_aeth = true;
  EXPECT_EQ(segment_message(MessageKind::kRdmaReadResponse, Transport::kRc, 4096, 9, 0),
            std::vector<SegmentedPacket>{read});
}

TEST(Segmentation, WriteCarriesRethFirstAndImmDtLast) {
  auto first = seg(0x06, 100, 0, 1024);
  first.has_reth = true;
  auto last = seg(0x09, 101, 1024, 1024);
  last.has_imm_dt = last.ack_req = true;
  EXPECT_EQ(segment_message(MessageKind::kRdmaWriteWithImm, Transport::kRc, 1024, 100, 2048),
            (std::vector<SegmentedPacket>{first, last}));

  const auto write = segment_message(MessageKind::kRdmaWrite, Transport::kRc, 1024, 0, 4096);
  ASSERT_EQ(write.size(), 4u);
  EXPECT_EQ(write[0].opcode, 0x06);
  EXPECT_EQ(write[1].opcode, 0x07);
  EXPECT_EQ(write[2].opcode, 0x07);
  EXPECT_EQ(write[3].opcode, 0x08);
  EXPECT_TRUE(write[0].has_reth);
  EXPECT_FALSE(write[1].has_reth || write[2].has_reth || write[3].has_reth);
  EXPECT_FALSE(write[0].ack_req || write[1].ack_req || write[2].ack_req);
  EXPECT_TRUE(write[3].ack_req);
}

TEST(Segmentation, SendWithInvalidateCarriesIethOnTheLastPacket) {
  auto last = seg(0x16, 1, 4096, 904);
  last.has_ieth = last.ack_req = true;
  EXPECT_EQ(segment_message(MessageKind::kSendWithInvalidate, Transport::kRc, 4096, 0, 5000),
            (std::vector<SegmentedPacket>{seg(0x00, 0, 0, 4096), last}));
  auto only = seg(0x17, 3, 0, 10);
  only.has_ieth = only.ack_req = true;
  EXPECT_EQ(segment_message(MessageKind::kSendWithInvalidate, Transport::kRc, 256, 3, 10),
            std::vector<SegmentedPacket>{only});
}

TEST(Segmentation, ReadResponseMatchesTheRxeCapture) {
  // rdma_read_bw.pcap frames 22 and 27-29 (testbench/data/roce): READ of
  // 3000 B at PMTU 1024, responses with PSN 6433910..6433912 carrying 1024,
  // 1024 and 952 B, AETH on FIRST and LAST only, A=0 throughout; the next
  // READ REQUEST (frame 23) has PSN 6433913.
  auto first = seg(0x0D, 6433910, 0, 1024);
  first.has_aeth = true;
  auto last = seg(0x0F, 6433912, 2048, 952);
  last.has_aeth = true;
  EXPECT_EQ(segment_message(MessageKind::kRdmaReadResponse, Transport::kRc, 1024, 6433910, 3000),
            (std::vector<SegmentedPacket>{first, seg(0x0E, 6433911, 1024, 1024), last}));
  EXPECT_EQ(packet_count(3000, 1024), 3u);  // the READ REQUEST consumes 3 PSNs
}

TEST(Segmentation, UcAndUdOpcodes) {
  EXPECT_EQ(segment_message(MessageKind::kRdmaWrite, Transport::kUc, 1024, 0, 2500),
            (std::vector<SegmentedPacket>{[] {
                                            auto p = seg(0x26, 0, 0, 1024);
                                            p.has_reth = true;
                                            return p;
                                          }(),
                                          seg(0x27, 1, 1024, 1024), seg(0x28, 2, 2048, 452)}));
  auto ud = seg(0x64, 0xFFFFFF, 0, 256);
  ud.has_deth = true;
  EXPECT_EQ(segment_message(MessageKind::kSend, Transport::kUd, 256, 0xFFFFFF, 256),
            std::vector<SegmentedPacket>{ud});
  auto ud_imm = seg(0x65, 0, 0, 0);
  ud_imm.has_deth = ud_imm.has_imm_dt = true;
  EXPECT_EQ(segment_message(MessageKind::kSendWithImm, Transport::kUd, 256, 0, 0),
            std::vector<SegmentedPacket>{ud_imm});
  auto uc_imm = seg(0x25, 4, 0, 1);
  uc_imm.has_imm_dt = true;
  EXPECT_EQ(segment_message(MessageKind::kSendWithImm, Transport::kUc, 512, 4, 1),
            std::vector<SegmentedPacket>{uc_imm});
}

TEST(Segmentation, IllegalRequestsThrow) {
  EXPECT_THROW(segment_message(MessageKind::kSend, Transport::kUd, 256, 0, 257),
               std::invalid_argument);
  EXPECT_THROW(segment_message(MessageKind::kRdmaWrite, Transport::kUd, 256, 0, 1),
               std::invalid_argument);
  EXPECT_THROW(segment_message(MessageKind::kSendWithInvalidate, Transport::kUc, 256, 0, 1),
               std::invalid_argument);
  EXPECT_THROW(segment_message(MessageKind::kRdmaReadResponse, Transport::kUc, 256, 0, 1),
               std::invalid_argument);
  EXPECT_THROW(segment_message(MessageKind::kSend, Transport::kCnp, 256, 0, 1),
               std::invalid_argument);
  EXPECT_THROW(segment_message(MessageKind::kSend, Transport::kRc, 1000, 0, 1),
               std::invalid_argument);
  EXPECT_THROW(segment_message(MessageKind::kSend, Transport::kRc, 1024, 0x1000000, 1),
               std::invalid_argument);
  EXPECT_THROW(
      segment_message(MessageKind::kSend, Transport::kRc, 4096, 0, (std::uint64_t{1} << 31) + 1),
      std::invalid_argument);
}

TEST(Segmentation, SlicesAreContiguousAndPsnsConsecutive) {
  for (const std::uint32_t pmtu : kPmtus) {
    for (const std::uint64_t length : {1ull, 255ull, 4096ull, 10000ull, 65536ull + 7}) {
      const auto packets =
          segment_message(MessageKind::kSend, Transport::kRc, pmtu, 0xFFFFF0, length);
      EXPECT_EQ(packets.size(), packet_count(length, pmtu));
      std::uint64_t next = 0;
      for (std::size_t i = 0; i < packets.size(); ++i) {
        EXPECT_EQ(packets[i].payload_offset, next);
        EXPECT_EQ(packets[i].psn, (0xFFFFF0 + i) & kPsnMask);
        EXPECT_EQ(packets[i].ack_req, i + 1 == packets.size());
        next += packets[i].payload_length;
      }
      EXPECT_EQ(next, length);
    }
  }
}

}  // namespace
}  // namespace rnicsim::packet
