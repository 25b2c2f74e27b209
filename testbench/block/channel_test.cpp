// Channel: latency, FIFO order, backpressure and credit return, through the
// blocking side, the non-blocking side and both together, each in its own
// elaboration.
#include <gtest/gtest.h>

#include <string>
#include <systemc>
#include <vector>

#include "common/activity.hpp"
#include "common/channel.hpp"
#include "common/time_units.hpp"

namespace rnicsim {
namespace {

using sc_core::sc_spawn;
using sc_core::sc_time_stamp;

std::uint64_t now_ps() { return to_ps(sc_time_stamp()); }

// Runs `body` as an SC_METHOD (it re-arms itself with next_trigger), counting
// its activations as our own methods do.
template <class Body>
void spawn_method(const char* name, Body body) {
  sc_core::sc_spawn_options options;
  options.spawn_method();
  sc_spawn(
      [body]() mutable {
        ++activity().method_activations;
        body();
      },
      name, &options);
}

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

TEST(Channel, PeekShowsTheVisibleHeadWithoutTakingIt) {
  Channel<int> channel("channel", 4);
  std::vector<std::pair<std::uint64_t, bool>> peeks;  // (time, saw item 7)
  sc_spawn([&] {
    channel.push(7, nanoseconds(5));
    for (int t : {0, 4, 5, 6}) {
      if (nanoseconds(t) > sc_time_stamp()) sc_core::wait(nanoseconds(t) - sc_time_stamp());
      const int* head = channel.peek();
      peeks.emplace_back(now_ps(), head != nullptr && *head == 7);
    }
    EXPECT_EQ(channel.size(), 1u);  // peeking twice took nothing
    int item = 0;
    EXPECT_TRUE(channel.nb_pop(item));
    EXPECT_EQ(item, 7);
    EXPECT_EQ(channel.peek(), nullptr);
    EXPECT_FALSE(channel.nb_pop(item));
  });
  sc_core::sc_start();
  const std::vector<std::pair<std::uint64_t, bool>> expected{
      {0, false}, {4000, false}, {5000, true}, {6000, true}};
  EXPECT_EQ(peeks, expected);
}

TEST(Channel, NbPushRefusesWhenFullAndLeavesTheItem) {
  Channel<std::string> channel("channel", 1);
  sc_spawn([&] {
    EXPECT_TRUE(channel.can_push());
    std::string first = "first";
    EXPECT_TRUE(channel.nb_push(std::move(first), sc_core::SC_ZERO_TIME));
    EXPECT_FALSE(channel.can_push());
    std::string second = "second";
    EXPECT_FALSE(channel.nb_push(std::move(second), sc_core::SC_ZERO_TIME));
    EXPECT_EQ(second, "second");
    EXPECT_EQ(channel.size(), 1u);
  });
  sc_core::sc_start();
}

TEST(Channel, CreditLatencyLimitsThroughputToCapacityOverLatencyPlusCredit) {
  // 2 places, 3 ns latency, credits back 2 ns after a pop: each place carries
  // one item per 5 ns, so pairs leave every 5 ns (2 / 5 ns), the reader
  // taking each as soon as it is visible.
  Channel<int> channel("channel", 2, nanoseconds(2));
  std::vector<std::uint64_t> pushed_at_ps;
  std::vector<std::uint64_t> popped_at_ps;
  sc_spawn([&] {
    for (int i = 0; i < 6; ++i) {
      channel.push(i, nanoseconds(3));
      pushed_at_ps.push_back(now_ps());
    }
  });
  sc_spawn([&] {
    for (int i = 0; i < 6; ++i) {
      EXPECT_EQ(channel.pop(), i);
      popped_at_ps.push_back(now_ps());
    }
  });
  sc_core::sc_start();
  EXPECT_EQ(pushed_at_ps, (std::vector<std::uint64_t>{0, 0, 5000, 5000, 10000, 10000}));
  EXPECT_EQ(popped_at_ps, (std::vector<std::uint64_t>{3000, 3000, 8000, 8000, 13000, 13000}));
}

TEST(Channel, MethodsMoveItemsThroughTheNonBlockingSideOnly) {
  // 2 places, 1 ns latency. The producer pushes while there is room and
  // waits for the space event; the consumer takes one visible item, then is
  // busy for 4 ns before it looks again.
  Channel<int> channel("channel", 2);
  std::vector<std::uint64_t> pushed_at_ps;
  std::vector<std::pair<int, std::uint64_t>> popped;
  int next = 0;
  spawn_method("producer", [&] {
    while (next < 5 && channel.nb_push(int{next}, nanoseconds(1))) {
      pushed_at_ps.push_back(now_ps());
      ++next;
    }
    if (next < 5) sc_core::next_trigger(channel.space_event());
  });
  spawn_method("consumer", [&] {
    int item = 0;
    if (!channel.nb_pop(item)) {
      sc_core::next_trigger(channel.data_event());
      return;
    }
    popped.emplace_back(item, now_ps());
    sc_core::next_trigger(nanoseconds(4));
  });
  sc_core::sc_start();
  EXPECT_EQ(pushed_at_ps, (std::vector<std::uint64_t>{0, 0, 1000, 5000, 9000}));
  const std::vector<std::pair<int, std::uint64_t>> expected{
      {0, 1000}, {1, 5000}, {2, 9000}, {3, 13000}, {4, 17000}};
  EXPECT_EQ(popped, expected);
  EXPECT_EQ(activity().channel_wakes, 0u);  // nobody waited inside the channel
}

TEST(Channel, ABlockingWriterFeedsAMethodReader) {
  // 1 place, 2 ns latency; the reader is busy 1 ns after each item, so it
  // looks at 3 ns before item 1 is visible (4 ns) and waits for it.
  Channel<int> channel("channel", 1);
  std::vector<std::uint64_t> pushed_at_ps;
  std::vector<std::uint64_t> popped_at_ps;
  sc_spawn([&] {
    for (int i = 0; i < 3; ++i) {
      channel.push(i, nanoseconds(2));
      pushed_at_ps.push_back(now_ps());
    }
  });
  spawn_method("reader", [&] {
    int item = 0;
    if (!channel.nb_pop(item)) {
      sc_core::next_trigger(channel.data_event());
      return;
    }
    EXPECT_EQ(item, static_cast<int>(popped_at_ps.size()));
    popped_at_ps.push_back(now_ps());
    sc_core::next_trigger(nanoseconds(1));
  });
  reset_activity();
  sc_core::sc_start();
  EXPECT_EQ(pushed_at_ps, (std::vector<std::uint64_t>{0, 2000, 4000}));
  EXPECT_EQ(popped_at_ps, (std::vector<std::uint64_t>{2000, 4000, 6000}));
  EXPECT_EQ(activity().channel_wakes, 2u);  // the writer, twice, waiting for room
  // Reader: at 0 (nothing), 2 (item 0), 3 (not yet), 4, 5, 6, 7 (nothing left).
  EXPECT_EQ(activity().method_activations, 7u);
}

TEST(Channel, AMethodWriterSeesCreditsComeBackToABlockingReader) {
  // 2 places, 3 ns latency, credits back 2 ns after a pop; the reader takes
  // an item, then waits 1 ns. Item 0 is popped at 3 ns (credit back at 5),
  // item 1 at 4 ns (credit back at 6, while the event is already due at 5):
  // the writer pushes at 5, finds the channel full again, and the failed
  // query brings it back at 6.
  Channel<int> channel("channel", 2, nanoseconds(2));
  std::vector<std::uint64_t> pushed_at_ps;
  std::vector<std::uint64_t> popped_at_ps;
  int next = 0;
  spawn_method("writer", [&] {
    while (next < 4 && channel.nb_push(int{next}, nanoseconds(3))) {
      pushed_at_ps.push_back(now_ps());
      ++next;
    }
    if (next < 4) sc_core::next_trigger(channel.space_event());
  });
  sc_spawn([&] {
    for (int i = 0; i < 4; ++i) {
      EXPECT_EQ(channel.pop(), i);
      popped_at_ps.push_back(now_ps());
      sc_core::wait(nanoseconds(1));
    }
  });
  sc_core::sc_start();
  EXPECT_EQ(pushed_at_ps, (std::vector<std::uint64_t>{0, 0, 5000, 6000}));
  EXPECT_EQ(popped_at_ps, (std::vector<std::uint64_t>{3000, 4000, 8000, 9000}));
}

}  // namespace
}  // namespace rnicsim
