// Time arithmetic every block relies on: exact serialization at 1 ps and
// cycle counts in clock domains whose period is not a whole picosecond.
#include <gtest/gtest.h>

#include <stdexcept>

#include "common/clock_domain.hpp"
#include "common/stage_timing.hpp"
#include "common/time_units.hpp"

namespace rnicsim {
namespace {

TEST(TimeUnits, SerializationIsExactWhenTheRateDividesEvenly) {
  EXPECT_EQ(to_ps(serialization_time(100, 100)), 1000u);     // the seed: 100 bits at 100G
  EXPECT_EQ(to_ps(serialization_time(100, 50)), 2000u);
  EXPECT_EQ(to_ps(serialization_time(33552, 100)), 335520u);  // a 4194 B RoCEv2 frame
  EXPECT_EQ(to_ps(serialization_time(100, 400)), 250u);
  EXPECT_EQ(to_ps(serialization_time(0, 100)), 0u);
}

TEST(TimeUnits, SerializationRoundsUpAFractionOfAPicosecond) {
  EXPECT_EQ(to_ps(serialization_time(100, 30)), 3334u);  // 3333.33 ps
  EXPECT_EQ(to_ps(serialization_time(1, 400)), 3u);      // 2.5 ps
  EXPECT_EQ(to_ps(serialization_time(3, 3)), 1000u);     // 1000/3*3: no spurious round-up
}

TEST(TimeUnits, NanosecondsRoundToThePicosecond) {
  EXPECT_EQ(to_ps(nanoseconds(1.5)), 1500u);
  EXPECT_EQ(to_ps(nanoseconds(0.0004)), 0u);
  EXPECT_DOUBLE_EQ(to_ns(picoseconds(4000)), 4.0);
}

TEST(ClockDomain, CyclesAreComputedFromTheCountNotByAddingPeriods) {
  const ClockDomain mac(322.265625);  // a 100G MAC clock: 3103.03 ps
  EXPECT_EQ(to_ps(mac.cycles(1)), 3103u);
  EXPECT_EQ(to_ps(mac.cycles(1000)), 3103030u);
  EXPECT_EQ(to_ps(ClockDomain(250).cycles(3)), 12000u);
  EXPECT_THROW(ClockDomain(0), std::invalid_argument);
}

TEST(StageTiming, RateStageServiceIsSizeOverRate) {
  const StageTiming t = StageTiming::rate(nanoseconds(5), 100);
  EXPECT_EQ(to_ps(t.service_time(100)), 1000u);
  EXPECT_EQ(to_ps(t.latency()), 5000u);
  EXPECT_EQ(StageTiming::rate(nanoseconds(5), 0).service_time(1000000), sc_core::SC_ZERO_TIME);
}

TEST(StageTiming, ClockedStageCountsWholeBeatsAndHonoursTheInitiationInterval) {
  const ClockDomain clock(250);  // 4 ns
  const StageTiming t = StageTiming::clocked(clock, 3, 64, 2);
  EXPECT_EQ(to_ps(t.latency()), 12000u);
  EXPECT_EQ(to_ps(t.service_time(100 * 8)), 8000u);   // 100 B = 2 beats of 64 B
  EXPECT_EQ(to_ps(t.service_time(10 * 8)), 8000u);    // 1 beat, but II is 2 cycles
  EXPECT_EQ(to_ps(t.service_time(200 * 8)), 16000u);  // 4 beats
  EXPECT_EQ(to_ps(StageTiming::clocked(clock, 0, 0, 1).service_time(8000)), 4000u);
}

}  // namespace
}  // namespace rnicsim
