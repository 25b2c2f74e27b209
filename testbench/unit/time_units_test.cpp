// Time arithmetic every block relies on: exact serialization at 1 ps and
// cycle counts in clock domains whose period is not a whole picosecond.
#include "common/time_units.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>

#include "common/clock_domain.hpp"
#include "common/stage_timing.hpp"

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

TEST(TimeUnits, SerializationAtAWholeRateAgreesWithTheFloatingPointRule) {
  // Whole rates take an integer path; it must give what the rule in long
  // double gives (exact when whole within 1e-6 ps, else rounded up).
  const auto rule = [](std::uint64_t bits, double gbps) {
    const long double ps = static_cast<long double>(bits) * 1000.0L / gbps;
    const long double nearest = std::round(ps);
    return static_cast<std::uint64_t>(std::fabs(ps - nearest) <= 1e-6L ? nearest : std::ceil(ps));
  };
  std::mt19937_64 random(11);
  const double rates[] = {1, 3, 7, 10, 25, 40, 50, 56, 100, 200, 400, 800, 1600, 99991, 100000};
  for (const double gbps : rates) {
    for (int i = 0; i < 20000; ++i) {
      const std::uint64_t bits = i < 4
                                     ? (std::uint64_t{1} << 32) - static_cast<std::uint64_t>(i)
                                     : random() % ((std::uint64_t{1} << 32) + 1) >> (random() % 33);
      ASSERT_EQ(to_ps(serialization_time(bits, gbps)), rule(bits, gbps)) << bits << " at " << gbps;
    }
  }
  // Past the integer path's bounds the rule itself answers.
  EXPECT_EQ(to_ps(serialization_time((std::uint64_t{1} << 40) + 1, 100)),
            rule((std::uint64_t{1} << 40) + 1, 100));
  EXPECT_EQ(to_ps(serialization_time(1000, 0.5)), 2000000u);
  EXPECT_EQ(to_ps(serialization_time(1000, 100001)), rule(1000, 100001));
}

TEST(TimeUnits, NanosecondsRoundToThePicosecond) {
  EXPECT_EQ(to_ps(nanoseconds(1.5)), 1500u);
  EXPECT_EQ(to_ps(nanoseconds(0.0004)), 0u);
  EXPECT_DOUBLE_EQ(to_ns(picoseconds(4000)), 4.0);
}

TEST(TimeUnits, NoConversionMakesADurationPastTwoToThe62Picoseconds) {
  // Every key is bounded so that one item's time stays far below 2^62 ps; a
  // conversion past it would be a missing bound, so it fails loudly instead
  // of handing the kernel a time that could wrap its 64-bit clock.
  EXPECT_EQ(to_ps(picoseconds(1ULL << 62)), 1ULL << 62);
  EXPECT_THROW(picoseconds((1ULL << 62) + 1), std::logic_error);
  EXPECT_EQ(to_ps(nanoseconds(1e9)), 1000000000000ULL);  // the largest ns key: 1 s
  EXPECT_THROW(nanoseconds(1e16), std::logic_error);
  EXPECT_THROW(nanoseconds(-1), std::logic_error);
  EXPECT_THROW(serialization_time(1ULL << 62, 0.001), std::logic_error);
  EXPECT_THROW(ClockDomain(1e-6).cycles(1ULL << 23), std::logic_error);  // 2^23 x 10^12 ps
  // The slowest clock a key allows (1 MHz) over the most cycles any key
  // gives (10^6): 10^12 ps, far from the limit.
  EXPECT_EQ(to_ps(ClockDomain(1).cycles(1000000)), 1000000000000ULL);
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

TEST(StageTiming, AnswersAsAFreshStageWhateverSizesItRemembers) {
  // It remembers the two sizes asked for last. Asking again, alternating, a
  // third size replacing the one asked for less recently, and a size asked
  // for just after a replacement all give what a fresh stage works out.
  const StageTiming t = StageTiming::rate(nanoseconds(1), 100);
  const auto fresh = [](std::uint64_t bits) {
    return to_ps(StageTiming::rate(nanoseconds(1), 100).service_time(bits));
  };
  const std::uint64_t sizes[] = {33000, 560, 33000, 560, 3, 33000, 3, 560, 0, 560, 33000, 33000};
  for (std::uint64_t bits : sizes) EXPECT_EQ(to_ps(t.service_time(bits)), fresh(bits)) << bits;
  EXPECT_EQ(fresh(33000), 330000u);  // 33,000 bits at 100 Gbit/s: 330 ns
  EXPECT_EQ(fresh(3), 30u);
  EXPECT_EQ(fresh(0), 0u);

  // A clocked stage: even 0 bits take the initiation interval, asked first or later.
  const StageTiming clocked = StageTiming::clocked(ClockDomain(250), 0, 64, 2);  // 4 ns cycles
  EXPECT_EQ(to_ps(clocked.service_time(0)), 8000u);
  EXPECT_EQ(to_ps(clocked.service_time(200 * 8)), 16000u);  // 4 beats
  EXPECT_EQ(to_ps(clocked.service_time(0)), 8000u);
  EXPECT_EQ(to_ps(StageTiming().service_time(0)), 0u);  // a stage that takes no time

  // A stage assigned over another takes the other's memory with its timing.
  StageTiming slower = StageTiming::rate(nanoseconds(1), 50);
  EXPECT_EQ(to_ps(slower.service_time(560)), 11200u);
  slower = t;
  EXPECT_EQ(to_ps(slower.service_time(560)), 5600u);
  EXPECT_EQ(to_ps(slower.service_time(800)), 8000u);

  // The largest size is worked out, not taken for a marker: it is out of range.
  EXPECT_THROW(StageTiming::rate(nanoseconds(1), 100).service_time(~std::uint64_t{0}),
               std::logic_error);
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
