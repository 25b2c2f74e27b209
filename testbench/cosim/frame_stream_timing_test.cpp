// The bridge's check that a frame-stream block answers the cycle after a
// frame's last beat (model/nic/rtl_bridge/frame_stream.hpp), which the ICRC and
// parser engines rely on to keep the RTL to the stage's charge. Exercised
// here with a stand-in block whose answer comes at a chosen cycle, so that
// every way to miss it is seen to fail with a message naming the frame.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "nic/rtl_bridge/frame_stream.hpp"

namespace rnicsim::rtl_bridge {
namespace {

// The ports clock_frame_through drives at 8 bytes per beat; always ready.
struct StandInBlock {
  std::uint8_t clk_i = 0;
  std::uint8_t s_frame_tvalid_i = 0;
  std::uint64_t s_frame_tdata_i = 0;
  std::uint8_t s_frame_tkeep_i = 0;
  std::uint8_t s_frame_tlast_i = 0;
  std::uint8_t s_frame_tready_o = 1;
  std::vector<std::uint8_t> lasts;  // tlast of each beat taken
  void eval() {
    if (clk_i == 1 && s_frame_tvalid_i) lasts.push_back(s_frame_tlast_i);
  }
};

// A 20-byte frame is 3 beats of 8: its answer is due in cycle 3.
void send(StandInBlock& block, std::optional<std::uint64_t> answer_at) {
  const std::vector<std::uint8_t> frame(20, 0x5A);
  std::uint64_t cycle = 0;
  answer_the_cycle_after_the_last_beat<8>(block, "rtl/stand_in", "test stage", frame.data(),
                                          frame.size(), [&](StandInBlock&) {
                                            return answer_at && cycle++ == *answer_at;
                                          });
}

std::string message_of(std::optional<std::uint64_t> answer_at) {
  StandInBlock block;
  try {
    send(block, answer_at);
  } catch (const std::logic_error& e) {
    return e.what();
  }
  return "";
}

TEST(FrameStreamTiming, AnAnswerTheCycleAfterTheLastBeatPasses) {
  StandInBlock block;
  EXPECT_NO_THROW(send(block, 3));
  EXPECT_EQ(block.lasts, (std::vector<std::uint8_t>{0, 0, 1}));  // three beats, the last marked
}

TEST(FrameStreamTiming, AnEarlyALateOrNoAnswerFailsNamingTheFrame) {
  EXPECT_EQ(message_of(2),
            "rtl/stand_in (8 bytes per cycle) answered a 20-byte frame after 2 cycles, not the 3 "
            "the test stage charges");
  const std::string late =
      "rtl/stand_in (8 bytes per cycle) answered a 20-byte frame after more cycles, not the 3 "
      "the test stage charges";
  EXPECT_EQ(message_of(4), late);
  EXPECT_EQ(message_of(std::nullopt), late);
}

TEST(FrameStreamTiming, AnEmptyFrameIsRefused) {
  StandInBlock block;
  const std::uint8_t none = 0;
  EXPECT_THROW(answer_the_cycle_after_the_last_beat<8>(block, "rtl/stand_in", "test stage", &none,
                                                       0, [](StandInBlock&) { return true; }),
               std::invalid_argument);
}

}  // namespace
}  // namespace rnicsim::rtl_bridge
