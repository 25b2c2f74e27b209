// The RTL ICRC engine (rtl/icrc) against its model twin, the ICRC the model's
// ICRC blocks compute (locate_icrc and compute_icrc): the same frames through
// both, a scoreboard comparing each frame's result, and the RTL's cycle
// timing against the model's clocked-stage timing. Both datapath widths
// (8 and 64 bytes per cycle) run every test.
//
// Stimulus: the ICRC vectors (the ten of the collection whose licence lets
// us copy them: testbench/data/roce/SOURCES.md), every frame of the real
// captures in testbench/data/roce, our own frames (VLAN, IPv6, odd header bits), and
// seeded random frames of every supported opcode, many of them damaged on
// purpose (a flipped bit inside or outside the ICRC's coverage, in a masked
// field, Ethernet padding, IPv4 options, a cut frame, a wrong port, type,
// version, protocol or length). Random stalls on both sides of the block.
// Frames: cosim/frame_stimulus.hpp; driver: cosim/frame_stream_driver.hpp.
//
// RNICSIM_COSIM_VCD=<folder> writes a VCD per test into that folder.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "Vicrc_w64.h"
#include "Vicrc_w8.h"
#include "Vicrc_w8_fault.h"
#include "cosim/frame_stimulus.hpp"
#include "cosim/frame_stream_driver.hpp"
#include "cosim/mode.hpp"
#include "cosim/stalls.hpp"
#include "formats/frame.hpp"
#include "formats/icrc.hpp"

namespace rnicsim::cosim {
namespace {

using packet::IcrcLocation;

// One frame's result, as the RTL's result port gives it.
struct IcrcResult {
  bool roce = false;
  std::uint32_t icrc = 0;
  bool match = false;
};

// icrc and match mean something only for a RoCEv2 frame.
bool same_result(const IcrcResult& a, const IcrcResult& b) {
  return a.roce == b.roce && (!a.roce || (a.icrc == b.icrc && a.match == b.match));
}

std::string describe(const IcrcResult& r) {
  if (!r.roce) return "not RoCEv2";
  std::ostringstream out;
  out << "icrc 0x" << std::hex << r.icrc << (r.match ? " (matches)" : " (differs)");
  return out.str();
}

// The model twin.
IcrcResult model_result(const Bytes& frame) {
  const std::optional<IcrcLocation> at = packet::locate_icrc(frame.data(), frame.size());
  if (!at) return {};
  const std::uint32_t icrc =
      packet::compute_icrc(frame.data() + at->ip_offset, at->icrc_offset - at->ip_offset);
  return {true, icrc, icrc == packet::load_icrc(frame.data() + at->icrc_offset)};
}

// rtl/icrc's answer port.
struct ResultPort {
  using Answer = IcrcResult;
  template <typename Top>
  static bool valid(const Top& top) {
    return top.m_result_valid_o != 0;
  }
  template <typename Top>
  static void set_ready(Top& top, bool ready) {
    top.m_result_ready_i = ready;
  }
  template <typename Top>
  static IcrcResult read(const Top& top) {
    return {top.m_result_roce_o != 0, top.m_result_icrc_o, top.m_result_match_o != 0};
  }
};

template <typename Top, std::size_t kDataBytes>
using IcrcRtlDriver = FrameStreamDriver<Top, kDataBytes, ResultPort>;
using RtlOutcome = StreamOutcome<IcrcResult>;

// The scoreboard: every frame's RTL result against the model's, all
// mismatches gathered before the test fails.
// With one side off (cosim/mode.hpp) the counts come from the other and
// nothing is compared.
struct Scoreboard {
  CosimMode mode = cosim_mode();
  std::size_t compared = 0;
  std::size_t roce_frames = 0;
  std::size_t matching_icrcs = 0;
  std::vector<std::string> mismatches;

  // `rtl` is empty when the RTL did not run.
  void compare(const std::vector<Frame>& frames, const std::vector<RtlOutcome>& rtl) {
    for (std::size_t i = 0; i < frames.size(); ++i) {
      const bool have_rtl = i < rtl.size();
      if (runs_rtl(mode) && !have_rtl) break;
      const IcrcResult expected =
          runs_model(mode) ? model_result(frames[i].bytes) : rtl[i].answer;
      ++compared;
      if (expected.roce) ++roce_frames;
      if (expected.roce && expected.match) ++matching_icrcs;
      if (runs_model(mode) && have_rtl && !same_result(expected, rtl[i].answer)) {
        mismatches.push_back(frames[i].name + " (" + std::to_string(frames[i].bytes.size()) +
                             " bytes): model " + describe(expected) + ", RTL " +
                             describe(rtl[i].answer));
      }
    }
  }

  std::string report() const {
    std::ostringstream out;
    out << mismatches.size() << " mismatches in " << compared << " frames";
    for (std::size_t i = 0; i < mismatches.size() && i < 10; ++i) out << "\n  " << mismatches[i];
    return out.str();
  }
};

// --- stimulus ---------------------------------------------------------------

struct IcrcVector {
  Frame frame;
  std::uint32_t icrc = 0;
};

// The repository's vectors, or the file RNICSIM_ICRC_VECTORS names (a larger
// collection whose licences keep it out of the repository, say).
std::vector<IcrcVector> icrc_vectors() {
  const char* other = std::getenv("RNICSIM_ICRC_VECTORS");
  std::ifstream in(other ? std::string(other)
                         : std::string(RNICSIM_TEST_DATA_DIR) + "/roce/icrc_test_vectors.json");
  const nlohmann::json vectors = nlohmann::json::parse(in);
  std::vector<IcrcVector> out;
  for (const nlohmann::json& v : vectors) {
    out.push_back({{v.at("name").get<std::string>(), from_hex(v.at("frame_hex"))},
                   static_cast<std::uint32_t>(
                       std::stoul(v.at("crc32_value").get<std::string>(), nullptr, 16))});
  }
  return out;
}

// --- the tests, at both widths ------------------------------------------------

using Widths = testing::Types<StreamWidth<Vicrc_w8, 8, ResultPort>,
                              StreamWidth<Vicrc_w64, 64, ResultPort>>;

template <typename T>
class IcrcCosim : public testing::Test {};
TYPED_TEST_SUITE(IcrcCosim, Widths, WidthNames);

TYPED_TEST(IcrcCosim, VectorsGiveTheirPublishedIcrc) {
  if (!runs_rtl(cosim_mode())) GTEST_SKIP() << "RNICSIM_COSIM_MODE=model runs no RTL";
  const std::vector<IcrcVector> vectors = icrc_vectors();
  // The ten whose licences let them live here (testbench/data/roce/SOURCES.md).
  if (std::getenv("RNICSIM_ICRC_VECTORS") == nullptr) {
    ASSERT_EQ(vectors.size(), 10u);
  }
  ASSERT_FALSE(vectors.empty());
  std::vector<Frame> frames;
  for (const IcrcVector& v : vectors) frames.push_back(v.frame);
  typename TypeParam::Driver rtl(1, kBusy);
  const std::vector<RtlOutcome> outcomes = rtl.run(frames);
  for (std::size_t i = 0; i < vectors.size(); ++i) {
    SCOPED_TRACE(vectors[i].frame.name);
    EXPECT_TRUE(outcomes[i].answer.roce);
    EXPECT_EQ(outcomes[i].answer.icrc, vectors[i].icrc);
    EXPECT_TRUE(outcomes[i].answer.match);
  }
}

TYPED_TEST(IcrcCosim, CapturedAndOwnFramesAgreeWithTheModel) {
  std::vector<Frame> frames = captured_frames();
  const std::vector<Frame> own = own_frames();
  frames.insert(frames.end(), own.begin(), own.end());
  const Scoreboard board = cross_check<TypeParam, Scoreboard>(frames, 2, kBusy);
  EXPECT_TRUE(board.mismatches.empty()) << board.report();
  // The captures are mostly RoCEv2 with good ICRCs, so the check has teeth.
  EXPECT_GT(board.matching_icrcs, board.compared / 2) << board.report();
}

TYPED_TEST(IcrcCosim, HeaderCornersAgreeWithTheModel) {
  const std::vector<Frame> frames = header_corners();
  const Scoreboard board = cross_check<TypeParam, Scoreboard>(frames, 8, kBusy);
  EXPECT_TRUE(board.mismatches.empty()) << board.report();
  // Every moved field still gives a good ICRC (5 layouts x 128), besides the
  // whole frames among the cuts; UDP lengths 24 to 27 are RoCEv2 too.
  EXPECT_GE(board.matching_icrcs, 5u * 128u + 5u);
  EXPECT_GE(board.roce_frames, board.matching_icrcs + 4u);
}

TYPED_TEST(IcrcCosim, RandomFramesUnderRandomStallsAgreeWithTheModel) {
  const std::vector<Frame> frames = random_frames(10000, 0x1C4C);
  const Scoreboard board = cross_check<TypeParam, Scoreboard>(frames, 3, kBusy);
  EXPECT_EQ(board.compared, 10000u);
  EXPECT_TRUE(board.mismatches.empty()) << board.report();
  // Both outcomes occur often: frames whose ICRC matches and damaged ones.
  EXPECT_GT(board.matching_icrcs, 2000u);
  EXPECT_GT(board.roce_frames - board.matching_icrcs, 300u);
  EXPECT_GT(board.compared - board.roce_frames, 1000u);
}

// Without stalls a frame takes ceil(bytes / width) cycles, frames follow
// each other with no idle cycle, and the result is there the cycle after the
// last beat: the model's clocked-stage timing with latency_cycles = 0.
TYPED_TEST(IcrcCosim, TakesOneBeatPerCycleAndAnswersAfterTheLastBeat) {
  if (!runs_rtl(cosim_mode())) GTEST_SKIP() << "RNICSIM_COSIM_MODE=model runs no RTL";
  const std::vector<Frame> frames = random_frames(500, 0x7117);
  typename TypeParam::Driver rtl(4, Stalls{});
  expect_one_beat_per_cycle(frames, rtl.run(frames), TypeParam::kDataBytes);
}

// Past 2^18 - 2 x width bytes the RTL stops counting positions; the ICRC of a
// RoCEv2 packet lies far before that, and the frame is long enough for any
// length its headers give, so the result is the model's.
TYPED_TEST(IcrcCosim, AFrameLongerThanTheCounterStillGivesTheModelsResult) {
  const std::vector<Frame> frames = frames_longer_than_the_counter(5);
  const Scoreboard board = cross_check<TypeParam, Scoreboard>(frames, 6, Stalls{});
  EXPECT_TRUE(board.mismatches.empty()) << board.report();
  EXPECT_EQ(board.matching_icrcs, 4u);
}

// The test-only fault (BTH byte 4 read as it is, not as ones) must show: a
// scoreboard that missed it would be missing the masks' purpose.
TEST(IcrcCosimFault, TheScoreboardCatchesAnUnmaskedBthByte) {
  if (cosim_mode() != CosimMode::kCrossCheck) GTEST_SKIP() << "needs both sides";
  const std::vector<Frame> frames = random_frames(400, 0xFA17);
  IcrcRtlDriver<Vicrc_w8_fault, 8> rtl(7, kBusy);
  Scoreboard board;
  board.compare(frames, rtl.run(frames));
  ASSERT_GT(board.roce_frames, 150u);
  // BTH byte 4 is random in these frames, so all but about 1 in 256 RoCEv2
  // results differ.
  EXPECT_GT(board.mismatches.size(), board.roce_frames * 9 / 10) << board.report();
}

}  // namespace
}  // namespace rnicsim::cosim
