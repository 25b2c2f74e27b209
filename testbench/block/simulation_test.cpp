// simulate(): a run ends when nothing is left to do, stops with an error at
// the simulated-time limit instead of letting SystemC's clock wrap, and
// stops early when a stop was requested.
#include <gtest/gtest.h>

#include <csignal>
#include <systemc>

#include "common/run_progress.hpp"
#include "common/simulation.hpp"
#include "common/time_units.hpp"

namespace rnicsim {
namespace {

TEST(Simulate, ReturnsWhenTheModelHasNothingLeftToDoAndKeepsItsTime) {
  sc_core::sc_spawn([] { sc_core::wait(picoseconds(1234)); });
  simulate();
  EXPECT_EQ(to_ps(sc_core::sc_time_stamp()), 1234u);
}

TEST(Simulate, StopsAtTheLimitRatherThanWrapTheClock) {
  // Each wait is 2^62 ps, the longest duration a block may compute: the
  // fourth would end at 2^64 ps, which a 64-bit clock cannot hold.
  int waits_done = 0;
  sc_core::sc_spawn([&waits_done] {
    for (int i = 0; i < 4; ++i) {
      sc_core::wait(picoseconds(kMaxDurationPs));
      ++waits_done;
    }
  });
  EXPECT_THROW(simulate(), SimulatedTimeExceeded);
  // The second wait would end exactly at the limit, 2^63 ps: the kernel
  // stops there without running what is due then, so that is still pending.
  EXPECT_EQ(waits_done, 1);
  EXPECT_EQ(sc_core::sc_time_stamp(), kMaxSimulatedTime);
}

TEST(Simulate, AStopRequestEndsTheRunAtTheNextItemAndThrowsInterrupted) {
  RunProgress progress;
  int items = 0;
  sc_core::sc_spawn([&] {
    for (;;) {
      sc_core::wait(picoseconds(1000));
      ++items;
      if (items == 3) request_stop(SIGTERM);  // as the signal handler would
      progress.advance();
    }
  });
  try {
    simulate();
    FAIL() << "simulate() returned";
  } catch (const Interrupted& e) {
    EXPECT_EQ(e.signal_number(), SIGTERM);
  }
  EXPECT_EQ(items, 3);
  EXPECT_EQ(to_ps(sc_core::sc_time_stamp()), 3000u);
}

// A workload's end ends the run, even with a timer pending far later (an RC
// retransmission timer): the run never waits for starvation.
TEST(SimulateWorkload, EndsWhenEveryPartHasFinishedWithTimersStillPending) {
  bool timer_fired = false;
  sc_core::sc_spawn([&timer_fired] {
    sc_core::wait(picoseconds(1000000));
    timer_fired = true;
  });
  sc_core::sc_spawn([] {
    sc_core::wait(picoseconds(300));
    finish_workload();
  });
  sc_core::sc_spawn([] {
    sc_core::wait(picoseconds(500));
    finish_workload();
  });
  simulate_workload(2);
  EXPECT_EQ(to_ps(sc_core::sc_time_stamp()), 500u);
  EXPECT_FALSE(timer_fired);
}

TEST(SimulateWorkload, AModelThatRunsOutOfEventsFirstIsAnError) {
  sc_core::sc_spawn([] {
    sc_core::wait(picoseconds(300));
    finish_workload();
  });
  sc_core::sc_spawn([] { sc_core::wait(picoseconds(700)); });  // the other part never finishes
  try {
    simulate_workload(2);
    FAIL() << "simulate_workload() returned";
  } catch (const WorkloadStalled& e) {
    EXPECT_STREQ(e.what(),
                 "the model ran out of events with its workload unfinished (1 of 2 parts done): "
                 "it waits for what will not come (a peer whose QP failed, a loss on a QP with "
                 "timeout 0) or the model deadlocked");
  }
  EXPECT_EQ(to_ps(sc_core::sc_time_stamp()), 700u);
}

}  // namespace
}  // namespace rnicsim
