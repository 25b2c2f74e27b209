// The RTL RoCEv2 parser (rtl/packet_parser) against its model twin, the
// packet parser's parse_frame without the ICRC: the same frames through both,
// a scoreboard comparing each frame's verdict (the reason code of the first
// failing check, or on success every header field and where the payload
// lies), and the RTL's cycle timing against the model's clocked stage. Both
// datapath widths (8 and 64 bytes per cycle) run every test.
// The RTL's descriptor is read through the bridge the NIC uses
// (rtl_bridge::parse_result_from_descriptor), so the layout generated from
// rtl/packet_parser/descriptor.fields is checked end to end.
//
// On a failing frame only the reason is compared: the model keeps the
// headers it decoded before the failing check, the RTL states none.
//
// Stimulus: every frame of the real captures and our own frames; every
// opcode byte 0 to 255 in every header layout (IPv4, IPv6, with and without
// VLAN) at every payload size its rule allows at every PMTU edge; frames of
// 1 to 5 beats; the shared header corners; and seeded random frames damaged
// on purpose so that every reason code occurs, with the IPv4 checksum made
// right again where the damage should reach a later check. Random stalls on
// both sides.
#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "Vpacket_parser_w64.h"
#include "Vpacket_parser_w8.h"
#include "Vpacket_parser_w8_fault.h"
#include "cosim/frame_stimulus.hpp"
#include "cosim/frame_stream_driver.hpp"
#include "cosim/mode.hpp"
#include "cosim/stalls.hpp"
#include "formats/frame.hpp"
#include "formats/headers.hpp"
#include "formats/opcodes.hpp"
#include "nic/packet/packet_parser_rtl.hpp"
#include "packet_difference.hpp"
#include "random_packets.hpp"

namespace rnicsim::cosim {
namespace {

using packet::ParseError;
using packet::ParseResult;
using packet::RocePacket;

// rtl/packet_parser's descriptor port, read as the NIC's bridge reads it.
struct DescriptorPort {
  using Answer = ParseResult;
  template <typename Top>
  static bool valid(const Top& top) {
    return top.m_desc_valid_o != 0;
  }
  template <typename Top>
  static void set_ready(Top& top, bool ready) {
    top.m_desc_ready_i = ready;
  }
  template <typename Top>
  static ParseResult read(const Top& top) {
    return rtl_bridge::parse_result_from_descriptor(top.m_desc_o.data());
  }
};

template <typename Top, std::size_t kDataBytes>
using ParserRtlDriver = FrameStreamDriver<Top, kDataBytes, DescriptorPort>;
using RtlOutcome = StreamOutcome<ParseResult>;

ParseResult model_result(const Bytes& frame) {
  return packet::parse_frame(frame.data(), frame.size(), packet::IcrcHandling::kSkip);
}

std::string describe(const ParseResult& r) {
  if (!r.ok()) return std::string("rejected: ") + packet::to_string(*r.error);
  std::ostringstream out;
  out << "ok, opcode 0x" << std::hex << int{r.packet.bth.opcode} << std::dec << ", payload "
      << r.packet.payload_length << " bytes at " << r.packet.payload_offset;
  return out.str();
}

// Every frame's RTL verdict against the model's, all mismatches gathered
// before the test fails; counts per outcome show what the stimulus reached.
// With one side off (cosim/mode.hpp) the counts come from the other and
// nothing is compared.
struct Scoreboard {
  CosimMode mode = cosim_mode();
  std::size_t compared = 0;
  std::size_t accepted = 0;
  std::array<std::size_t, 256> accepted_by_opcode{};
  std::array<std::size_t, packet::kParseErrorCount> rejected{};
  std::vector<std::string> mismatches;

  // `rtl` is empty when the RTL did not run.
  void compare(const std::vector<Frame>& frames, const std::vector<RtlOutcome>& rtl) {
    for (std::size_t i = 0; i < frames.size(); ++i) {
      const bool have_rtl = i < rtl.size();
      if (runs_rtl(mode) && !have_rtl) break;
      const ParseResult expected = runs_model(mode) ? model_result(frames[i].bytes) : rtl[i].answer;
      ++compared;
      if (expected.ok()) {
        ++accepted;
        ++accepted_by_opcode[expected.packet.bth.opcode];
      } else {
        ++rejected[static_cast<std::size_t>(*expected.error)];
      }
      if (!runs_model(mode) || !have_rtl) continue;
      const ParseResult& got = rtl[i].answer;
      std::string difference;
      if (expected.error != got.error) {
        difference = "verdict";
      } else if (expected.ok()) {
        difference = testbench::first_difference(expected.packet, got.packet);
      }
      if (!difference.empty()) {
        mismatches.push_back(frames[i].name + " (" + std::to_string(frames[i].bytes.size()) +
                             " bytes): " + difference + " differs; model " + describe(expected) +
                             ", RTL " + describe(got));
      }
    }
  }

  std::size_t rejected_for(ParseError error) const {
    return rejected[static_cast<std::size_t>(error)];
  }

  std::string report() const {
    std::ostringstream out;
    out << mismatches.size() << " mismatches in " << compared << " frames (" << accepted
        << " accepted)";
    for (std::size_t i = 0; i < mismatches.size() && i < 10; ++i) out << "\n  " << mismatches[i];
    return out.str();
  }
};

// --- stimulus ---------------------------------------------------------------

// Every opcode byte in every header layout. A supported opcode comes at
// every PMTU edge (0, 1, 3, 4, each PMTU and one past it): the sizes its
// payload rule allows built for it, the sizes it refuses (up to 4096) as a
// SEND ONLY frame of that size with its opcode byte written over. An
// unsupported opcode is a SEND ONLY frame with that opcode byte.
std::vector<Frame> every_opcode_and_layout() {
  std::mt19937_64 rng(0x0C0DE);
  std::vector<Frame> frames;
  static constexpr std::size_t kSizes[] = {0,   1,    3,    4,    255,  256,  257, 512,
                                           513, 1024, 1025, 2048, 2049, 4096, 4097};
  for (int opcode = 0; opcode < 256; ++opcode) {
    const packet::OpcodeInfo* info = packet::find_opcode(static_cast<std::uint8_t>(opcode));
    for (const bool ipv6 : {false, true}) {
      for (const bool vlan : {false, true}) {
        const std::string layout = std::string(ipv6 ? " IPv6" : " IPv4") + (vlan ? " VLAN" : "");
        char name[16];
        std::snprintf(name, sizeof name, "opcode 0x%02x", opcode);
        if (info == nullptr) {
          const Bytes payload = testbench::random_bytes(rng, 8);
          Bytes frame = packet::build_frame(testbench::random_headers(0x04, ipv6, vlan, rng),
                                            payload.data(), payload.size());
          frame[ip_offset_of(frame) + (ipv6 ? 40 : 20) + 8] = static_cast<std::uint8_t>(opcode);
          frames.push_back({name + layout, std::move(frame)});
          continue;
        }
        for (const std::size_t size : kSizes) {
          const Bytes payload = testbench::random_bytes(rng, size);
          const std::string label = name + layout + " payload " + std::to_string(size);
          if (packet::payload_length_ok(info->payload, size, 0)) {
            frames.push_back(
                {label, packet::build_frame(testbench::random_headers(
                                                static_cast<std::uint8_t>(opcode), ipv6, vlan, rng),
                                            payload.data(), payload.size())});
          } else if (size <= packet::kMaxPmtu) {
            Bytes frame = packet::build_frame(testbench::random_headers(0x04, ipv6, vlan, rng),
                                              payload.data(), payload.size());
            frame[ip_offset_of(frame) + (ipv6 ? 40 : 20) + 8] = static_cast<std::uint8_t>(opcode);
            frames.push_back({label + " (refused)", std::move(frame)});
          }
        }
      }
    }
  }
  return frames;
}

// RC SEND ONLY frames of 0 to 260 payload bytes, each with 0 to 63 bytes of
// Ethernet padding after it (which the parser ignores): frames of 58 to 377
// bytes, 1 to 6 beats at 64 bytes per cycle, with every count of bytes in
// the last beat at either width.
std::vector<Frame> beat_counts() {
  std::mt19937_64 rng(0xB3A7);
  std::vector<Frame> frames;
  for (std::size_t size = 0; size <= 260; ++size) {
    const Bytes payload = testbench::random_bytes(rng, size);
    Bytes frame = packet::build_frame(testbench::random_headers(0x04, false, false, rng),
                                      payload.data(), payload.size());
    const std::size_t padding = (size / 4) % 64;  // with the payload: every length mod 64
    frame.resize(frame.size() + padding, 0);
    frames.push_back(
        {"SEND ONLY payload " + std::to_string(size) + " padding " + std::to_string(padding),
         std::move(frame)});
  }
  return frames;
}

// A random frame with one fault of the kinds the parser checks for, most of
// them placed so that the checks before the faulty one pass (the IPv4
// checksum made right again, lengths kept consistent).
Frame random_parser_frame(std::size_t index, std::mt19937_64& rng) {
  Bytes frame = random_roce_frame(rng);
  const std::size_t ip = ip_offset_of(frame);
  const bool ipv6 = frame[ip] >> 4 == 6;
  const std::size_t udp = ip + (ipv6 ? 40 : 20);
  const std::size_t bth = udp + 8;
  const auto random_byte = [&rng] { return static_cast<std::uint8_t>(rng()); };
  // Adds `delta` to the IP and UDP lengths alike.
  const auto shift_lengths = [&](int delta) {
    for (const std::size_t at : {ip + (ipv6 ? 4 : 2), udp + 4}) {
      packet::store_be16(static_cast<std::uint16_t>(packet::load_be16(frame.data() + at) + delta),
                         frame.data() + at);
    }
  };
  std::string how;
  switch (rng() % 15) {
    case 0:
      how = "intact";
      break;
    case 1:  // any header byte, the checksum right again half the time
      frame[rng() % std::min<std::size_t>(frame.size(), 128)] = random_byte();
      if (rng() % 2 == 0) fix_ipv4_checksum(frame);
      how = "header byte";
      break;
    case 2:
      frame[bth] = random_byte();
      how = "opcode";
      break;
    case 3:
      frame[bth + 1] = static_cast<std::uint8_t>((frame[bth + 1] & 0xF0) | (rng() % 16));
      how = "BTH version";
      break;
    case 4:
      frame[bth + 1] = static_cast<std::uint8_t>((frame[bth + 1] & 0xCFu) | (rng() % 4) << 4);
      how = "pad count";
      break;
    case 5:
      if (!ipv6) {
        packet::store_be16(static_cast<std::uint16_t>(rng()), frame.data() + ip + 6);
        fix_ipv4_checksum(frame);
      }
      how = "IPv4 flags and fragment offset";
      break;
    case 6:
      frame[ip + (ipv6 ? 6 : 9)] = rng() % 2 == 0 ? 6 : random_byte();
      fix_ipv4_checksum(frame);
      how = "IP protocol";
      break;
    case 7: {  // lengths that still agree, so later checks decide
      const int delta = static_cast<int>(rng() % 64) - 40;
      shift_lengths(delta);
      fix_ipv4_checksum(frame);
      how = "IP and UDP lengths " + std::to_string(delta);
      break;
    }
    case 8:  // the UDP length alone
      packet::store_be16(static_cast<std::uint16_t>(packet::load_be16(frame.data() + udp + 4) +
                                                    static_cast<int>(rng() % 9) - 4),
                         frame.data() + udp + 4);
      how = "UDP length";
      break;
    case 9:
      packet::store_be16(
          static_cast<std::uint16_t>(rng() % 2 == 0 ? packet::kRoceV2UdpPort + 1 : random_byte()),
          frame.data() + udp + 2);
      how = "UDP port";
      break;
    case 10: {  // the EtherType of the other IP version, or none
      const std::uint16_t types[] = {packet::kEtherTypeIpv4, packet::kEtherTypeIpv6, 0x88B5,
                                     packet::kEtherTypeVlan};
      packet::store_be16(types[rng() % 4], frame.data() + ip - 2);
      how = "EtherType";
      break;
    }
    case 11: {  // half the cuts inside the Ethernet header or just after it
      const std::size_t limit = rng() % 2 == 0 ? 20 : frame.size();
      frame.resize(1 + rng() % limit);
      how = "cut short";
      break;
    }
    case 14: {  // room for little more than the BTH: the extended headers may not fit
      const int udp_length = 24 + static_cast<int>(rng() % 32);
      shift_lengths(udp_length - packet::load_be16(frame.data() + udp + 4));
      fix_ipv4_checksum(frame);
      how = "UDP length " + std::to_string(udp_length);
      break;
    }
    case 12:
      add_ipv4_options(frame, 1 + rng() % 10, rng);
      if (rng() % 2 == 0) frame.resize(frame.size() + 1 + rng() % 60, 0);
      how = "IPv4 options, maybe padding";
      break;
    default:  // the IPv4 checksum alone, or the IPv6 version nibble
      frame[ip + (ipv6 ? 0 : 10)] ^=
          static_cast<std::uint8_t>(1u << ((ipv6 ? 4 : 0) + rng() % (ipv6 ? 4 : 8)));
      how = ipv6 ? "IPv6 version" : "IPv4 checksum";
      break;
  }
  return {"random #" + std::to_string(index) + " (" + how + ")", std::move(frame)};
}

// Half parser faults, half the ICRC engine's damage (cosim/frame_stimulus).
std::vector<Frame> random_parser_frames(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Frame> frames;
  for (std::size_t i = 0; i < count; ++i) {
    frames.push_back(i % 2 == 0 ? random_parser_frame(i, rng) : random_frame(i, rng));
  }
  return frames;
}

// --- the tests, at both widths ------------------------------------------------

using Widths = testing::Types<StreamWidth<Vpacket_parser_w8, 8, DescriptorPort>,
                              StreamWidth<Vpacket_parser_w64, 64, DescriptorPort>>;

template <typename T>
class PacketParserCosim : public testing::Test {};
TYPED_TEST_SUITE(PacketParserCosim, Widths, WidthNames);

TYPED_TEST(PacketParserCosim, CapturedAndOwnFramesAgreeWithTheModel) {
  std::vector<Frame> frames = captured_frames();
  const std::vector<Frame> own = own_frames();
  frames.insert(frames.end(), own.begin(), own.end());
  const Scoreboard board = cross_check<TypeParam, Scoreboard>(frames, 2, kBusy);
  EXPECT_TRUE(board.mismatches.empty()) << board.report();
  // Mostly RoCEv2 packets, so the fields are compared, not only verdicts.
  EXPECT_GT(board.accepted, board.compared / 2) << board.report();
}

TYPED_TEST(PacketParserCosim, EveryOpcodeInEveryLayoutAgreesWithTheModel) {
  const std::vector<Frame> frames = every_opcode_and_layout();
  const Scoreboard board = cross_check<TypeParam, Scoreboard>(frames, 9, kBusy);
  EXPECT_TRUE(board.mismatches.empty()) << board.report();
  // 256 - 38 unsupported opcodes x 4 layouts; the refused sizes fail the
  // payload, pad or header-length check.
  EXPECT_EQ(board.rejected_for(ParseError::kUnsupportedOpcode), (256u - 38u) * 4u);
  EXPECT_GT(board.rejected_for(ParseError::kPayloadLength), 38u * 4u);
  EXPECT_GT(board.accepted, 38u * 4u * 5u);
  // Each supported opcode, each a branch of the RTL's opcode table, accepted.
  for (int opcode = 0; opcode < 256; ++opcode) {
    if (packet::find_opcode(static_cast<std::uint8_t>(opcode)) == nullptr) continue;
    EXPECT_GT(board.accepted_by_opcode[static_cast<std::size_t>(opcode)], 0u)
        << "opcode " << opcode << " never accepted";
  }
}

TYPED_TEST(PacketParserCosim, FramesOfOneToSixBeatsBackToBackAgreeWithTheModel) {
  const std::vector<Frame> frames = beat_counts();
  const Scoreboard board = cross_check<TypeParam, Scoreboard>(frames, 10, Stalls{});
  EXPECT_TRUE(board.mismatches.empty()) << board.report();
  EXPECT_EQ(board.accepted, frames.size());
}

TYPED_TEST(PacketParserCosim, HeaderCornersAgreeWithTheModel) {
  const std::vector<Frame> frames = header_corners();
  const Scoreboard board = cross_check<TypeParam, Scoreboard>(frames, 8, kBusy);
  EXPECT_TRUE(board.mismatches.empty()) << board.report();
  // Cuts reach the Ethernet and IP length checks, IHLs 0 to 4 the IP length
  // check, UDP lengths 8 to 23 the UDP length check. An ICRC field moved by
  // a multiple of 4 leaves a valid packet (5 layouts x 32 moves, and the 5
  // whole frames among the cuts); other moves break the 4-byte alignment.
  EXPECT_GT(board.rejected_for(ParseError::kTruncatedEthernet), 0u);
  EXPECT_GT(board.rejected_for(ParseError::kIpLength), 5u);
  EXPECT_EQ(board.rejected_for(ParseError::kUdpLength), 16u);
  EXPECT_GT(board.rejected_for(ParseError::kPad), 5u * 90u);
  EXPECT_GE(board.accepted, 5u * 32u + 5u);
}

// Every reason code the parser gives (all but the ICRC's, which is the ICRC
// block's) comes up among the random frames, each at least 40 times.
TYPED_TEST(PacketParserCosim, RandomFramesUnderRandomStallsAgreeWithTheModel) {
  const std::vector<Frame> frames = random_parser_frames(10000, 0x9A55);
  const Scoreboard board = cross_check<TypeParam, Scoreboard>(frames, 3, kBusy);
  EXPECT_EQ(board.compared, 10000u);
  EXPECT_TRUE(board.mismatches.empty()) << board.report();
  EXPECT_GT(board.accepted, 1500u);
  for (std::size_t e = 0; e + 1 < packet::kParseErrorCount; ++e) {
    EXPECT_GE(board.rejected[e], 40u) << packet::to_string(static_cast<ParseError>(e));
  }
}

// Without stalls a frame takes ceil(bytes / width) cycles, frames follow
// each other with no idle cycle, and the descriptor is there the cycle after
// the last beat: the model's clocked-stage timing with latency_cycles = 0.
TYPED_TEST(PacketParserCosim, TakesOneBeatPerCycleAndAnswersAfterTheLastBeat) {
  if (!runs_rtl(cosim_mode())) GTEST_SKIP() << "RNICSIM_COSIM_MODE=model runs no RTL";
  const std::vector<Frame> frames = random_parser_frames(500, 0x7117);
  typename TypeParam::Driver rtl(4, Stalls{});
  expect_one_beat_per_cycle(frames, rtl.run(frames), TypeParam::kDataBytes);
}

// Past 2^18 - 2 x width bytes the RTL stops counting; every length a header
// states is far below that, so the verdict is the model's.
TYPED_TEST(PacketParserCosim, AFrameLongerThanTheCounterStillGetsTheModelsVerdict) {
  const std::vector<Frame> frames = frames_longer_than_the_counter(5);
  const Scoreboard board = cross_check<TypeParam, Scoreboard>(frames, 6, Stalls{});
  EXPECT_TRUE(board.mismatches.empty()) << board.report();
  EXPECT_EQ(board.accepted, 4u);
}

// The test-only fault (no IPv4 header checksum check) must show.
TEST(PacketParserCosimFault, TheScoreboardCatchesAMissingChecksumCheck) {
  if (cosim_mode() != CosimMode::kCrossCheck) GTEST_SKIP() << "needs both sides";
  const std::vector<Frame> frames = random_parser_frames(2000, 0xFA17);
  ParserRtlDriver<Vpacket_parser_w8_fault, 8> rtl(7, kBusy);
  Scoreboard board;
  board.compare(frames, rtl.run(frames));
  // Each frame the model rejects for its checksum is a mismatch.
  ASSERT_GT(board.rejected_for(ParseError::kIpv4Checksum), 20u);
  EXPECT_GE(board.mismatches.size(), board.rejected_for(ParseError::kIpv4Checksum))
      << board.report();
}

}  // namespace
}  // namespace rnicsim::cosim
