// The frame engines the NIC's ICRC and parser blocks run (packet/icrc_engine,
// packet/parser_engine), with the verilated RTL behind them
// (model/nic/rtl_bridge): what the blocks see through the engine interface, at
// both verilated widths. The co-simulation tests (label cosim) hold the RTL
// to the model on far more frames; these hold the bridge: the same answers
// as the model's engine frame after frame on one engine, its name, and an
// empty frame refused.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "nic/packet/icrc_engine.hpp"
#include "nic/packet/icrc_rtl.hpp"
#include "nic/packet/packet_parser_rtl.hpp"
#include "nic/packet/parser_engine.hpp"
#include "own_frames.hpp"
#include "packet_difference.hpp"

namespace rnicsim {
namespace {

class FrameEngines : public ::testing::TestWithParam<std::uint64_t> {};  // bytes per cycle

TEST_P(FrameEngines, TheRtlIcrcEngineAnswersAsTheModelsFrameAfterFrame) {
  const auto model = packet::make_model_icrc_engine();
  const auto rtl = rtl_bridge::make_icrc_engine(BlockImpl::kRtl, GetParam());
  EXPECT_STREQ(rtl->name(), "rtl/icrc");
  std::size_t roce = 0;
  for (const testbench::OwnFrame& frame : testbench::own_frames()) {
    const packet::IcrcVerdict expected = model->examine(frame.bytes.data(), frame.bytes.size());
    const packet::IcrcVerdict got = rtl->examine(frame.bytes.data(), frame.bytes.size());
    EXPECT_EQ(got.roce, expected.roce) << frame.name;
    if (!expected.roce) continue;
    ++roce;
    EXPECT_EQ(got.icrc, expected.icrc) << frame.name;
    EXPECT_EQ(got.match, expected.match) << frame.name;
  }
  EXPECT_GT(roce, 5u);
}

TEST_P(FrameEngines, TheRtlParserEngineAnswersAsTheModelsFrameAfterFrame) {
  const auto model = packet::make_model_parser_engine();
  const auto rtl = rtl_bridge::make_parser_engine(BlockImpl::kRtl, GetParam());
  EXPECT_STREQ(rtl->name(), "rtl/packet_parser");
  std::size_t accepted = 0;
  for (const testbench::OwnFrame& frame : testbench::own_frames()) {
    const packet::ParseResult expected = model->parse(frame.bytes.data(), frame.bytes.size());
    const packet::ParseResult got = rtl->parse(frame.bytes.data(), frame.bytes.size());
    ASSERT_EQ(got.error, expected.error) << frame.name;
    if (!expected.ok()) continue;
    ++accepted;
    EXPECT_EQ(testbench::first_difference(got.packet, expected.packet), "") << frame.name;
  }
  EXPECT_GT(accepted, 5u);
}

// No stream beat carries zero bytes, and the wire never delivers an empty
// frame: the RTL engines refuse one rather than answer for the RTL.
TEST_P(FrameEngines, AnEmptyFrameIsRefusedNamingTheBlock) {
  const std::uint8_t none = 0;
  const auto icrc = rtl_bridge::make_icrc_engine(BlockImpl::kRtl, GetParam());
  const auto parser = rtl_bridge::make_parser_engine(BlockImpl::kRtl, GetParam());
  try {
    icrc->examine(&none, 0);
    ADD_FAILURE() << "rtl/icrc took an empty frame";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "rtl/icrc: an empty frame has no beat to send");
  }
  try {
    parser->parse(&none, 0);
    ADD_FAILURE() << "rtl/packet_parser took an empty frame";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "rtl/packet_parser: an empty frame has no beat to send");
  }
}

std::string width_name(const ::testing::TestParamInfo<std::uint64_t>& point) {
  return std::to_string(point.param) + "_bytes";
}

INSTANTIATE_TEST_SUITE_P(Rtl, FrameEngines, ::testing::Values(8, 64), width_name);

TEST(FrameEngines, OnlyTheVerilatedWidthsHaveAnRtlEngine) {
  EXPECT_THROW(rtl_bridge::make_icrc_engine(BlockImpl::kRtl, 16), std::invalid_argument);
  EXPECT_THROW(rtl_bridge::make_parser_engine(BlockImpl::kRtl, 32), std::invalid_argument);
  EXPECT_STREQ(rtl_bridge::make_icrc_engine(BlockImpl::kModel, 16)->name(), "model");
}

}  // namespace
}  // namespace rnicsim
