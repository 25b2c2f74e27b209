// Channel: latency, FIFO order and backpressure, each in its own elaboration.
#include <gtest/gtest.h>

#include <string>
#include <systemc>
#include <vector>

#include "common/channel.hpp"
#include "common/time_units.hpp"

namespace rnicsim {
namespace {

using sc_core::sc_spawn;
using sc_core::sc_time_stamp;

TEST(Channel, AnItemBecomesVisibleItsLatencyAfterThePush) {
  Channel<int> channel("channel", 4);
  std::vector<std::uint64_t> popped_at_ps;
  sc_spawn([&] {
    sc_core::wait(nanoseconds(2));
    channel.push(7, nanoseconds(5));
  });
  sc_spawn([&] {
    EXPECT_EQ(channel.pop(), 7);
    popped_at_ps.push_back(to_ps(sc_time_stamp()));
  });
  sc_core::sc_start();
  EXPECT_EQ(popped_at_ps, std::vector<std::uint64_t>{7000});
}

TEST(Channel, ItemsLeaveInOrderEvenWhenALaterOneHasLessLatency) {
  Channel<std::string> channel("channel", 4);
  std::vector<std::pair<std::string, std::uint64_t>> popped;
  sc_spawn([&] {
    channel.push("slow", nanoseconds(10));
    channel.push("fast", nanoseconds(1));
  });
  sc_spawn([&] {
    for (int i = 0; i < 2; ++i) {
      std::string item = channel.pop();
      popped.emplace_back(item, to_ps(sc_time_stamp()));
    }
  });
  sc_core::sc_start();
  const std::vector<std::pair<std::string, std::uint64_t>> expected{{"slow", 10000},
                                                                    {"fast", 10000}};
  EXPECT_EQ(popped, expected);
}

TEST(Channel, AFullChannelBlocksTheWriterUntilTheReaderTakesAnItem) {
  Channel<int> channel("channel", 2);
  std::vector<std::uint64_t> pushed_at_ps;
  sc_spawn([&] {
    for (int i = 0; i < 4; ++i) {
      channel.push(i, sc_core::SC_ZERO_TIME);
      pushed_at_ps.push_back(to_ps(sc_time_stamp()));
    }
  });
  sc_spawn([&] {
    for (int i = 0; i < 4; ++i) {
      sc_core::wait(nanoseconds(10));
      EXPECT_EQ(channel.pop(), i);
    }
  });
  sc_core::sc_start();
  // Two fit at once; each later push waits for a pop at 10, then 20 ns.
  EXPECT_EQ(pushed_at_ps, (std::vector<std::uint64_t>{0, 0, 10000, 20000}));
  EXPECT_EQ(channel.peak_occupancy(), 2u);
}

}  // namespace
}  // namespace rnicsim
