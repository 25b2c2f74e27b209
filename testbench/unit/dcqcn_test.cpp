// DCQCN's reaction point (nic/congestion/dcqcn.hpp, rate_limiters.hpp):
// hand-worked sequences. The rates below are exact in binary floating point
// (halvings of 100 Gbit/s), so they are compared exactly.
#include "nic/congestion/dcqcn.hpp"

#include <gtest/gtest.h>

#include "nic/congestion/rate_limiters.hpp"

namespace rnicsim {
namespace {

constexpr std::uint64_t kUs = 1'000'000;  // ps
constexpr double kGbps = 1e9;

DcqcnParameters paper() {
  DcqcnParameters p;
  p.preset = DcqcnPreset::kPaper;
  p.line_rate_bps = 100 * kGbps;
  p.g = 1.0 / 256;
  p.initial_alpha = 1;
  p.decrease_log2 = 1;
  p.alpha_period_ps = 55 * kUs;
  p.timer_ps = 55 * kUs;
  p.byte_counter_bytes = 10'000'000;
  p.threshold = 5;
  p.additive_increase_bps = 40e6;
  p.hyper_increase_bps = 200e6;
  p.min_rate_bps = 100e6;
  return p;
}

DcqcnParameters firmware() {
  DcqcnParameters p;
  p.preset = DcqcnPreset::kFirmware;
  p.line_rate_bps = 100 * kGbps;
  p.g = 5.0 / 1024;
  p.initial_alpha = 1;  // 1024/1024: cuts below are exact halvings
  p.alpha_units = 1024;
  p.decrease_log2 = 11;
  p.min_decrease_factor = 0.5;
  p.min_rate_bps = 1e6;
  p.alpha_period_ps = 1 * kUs;
  p.reduce_monitor_ps = 4 * kUs;
  p.timer_ps = 300 * kUs;
  p.byte_counter_bytes = 32767;
  p.threshold = 1;
  p.additive_increase_bps = 5e6;
  p.hyper_increase_bps = 50e6;
  p.clamp_target = false;
  return p;
}

TEST(DcqcnPaper, FirstCnpHalvesTheRateAndFiveTimerEventsRecoverIt) {
  const DcqcnParameters p = paper();
  ReactionPoint rp(p);
  EXPECT_FALSE(rp.active());
  EXPECT_EQ(rp.rate_bps(), 100 * kGbps);
  const std::uint64_t t0 = 10 * kUs;
  EXPECT_TRUE(rp.cnp(t0));
  EXPECT_TRUE(rp.active());
  EXPECT_EQ(rp.rate_bps(), 50 * kGbps);
  EXPECT_EQ(rp.target_bps(), 100 * kGbps);
  EXPECT_EQ(rp.alpha(), 1.0);  // (1 - g) x 1 + g
  // Nothing happens until the first timer event, T after the cut.
  rp.advance(t0 + 55 * kUs - 1);
  EXPECT_EQ(rp.rate_bps(), 50 * kGbps);
  const double expected[] = {75, 87.5, 93.75, 96.875, 98.4375};
  for (int k = 1; k <= 5; ++k) {
    rp.advance(t0 + static_cast<std::uint64_t>(k) * 55 * kUs);
    EXPECT_EQ(rp.timer_events(), static_cast<std::uint32_t>(k));
    EXPECT_EQ(rp.rate_bps(), expected[k - 1] * kGbps) << "timer event " << k;
    // The fifth is additive increase: RT + 40 Mbit/s, capped at line rate.
    EXPECT_EQ(rp.target_bps(), 100 * kGbps);
  }
}

TEST(DcqcnPaper, SecondCnpRightAfterTheFirstHalvesAgain) {
  const DcqcnParameters p = paper();
  ReactionPoint rp(p);
  rp.cnp(0);
  EXPECT_TRUE(rp.cnp(1));  // alpha is still 1
  EXPECT_EQ(rp.rate_bps(), 25 * kGbps);
  EXPECT_EQ(rp.target_bps(), 50 * kGbps);
}

TEST(DcqcnPaper, AlphaDecaysOncePerAlphaPeriodWithoutCnp) {
  DcqcnParameters p = paper();
  p.timer_ps = 1000 * kUs;  // no rate events in the way
  ReactionPoint rp(p);
  rp.cnp(0);
  rp.advance(55 * kUs - 1);
  EXPECT_EQ(rp.alpha(), 1.0);
  rp.advance(3 * 55 * kUs);
  const double decay = 1 - 1.0 / 256;
  EXPECT_DOUBLE_EQ(rp.alpha(), decay * decay * decay);
  // A CNP cuts by the decayed alpha, then raises alpha by g.
  const double alpha = rp.alpha();
  rp.cnp(3 * 55 * kUs + 1);
  EXPECT_DOUBLE_EQ(rp.rate_bps(), 50 * kGbps * (1 - alpha / 2));
  EXPECT_DOUBLE_EQ(rp.alpha(), decay * alpha + 1.0 / 256);
}

TEST(DcqcnPaper, ByteCounterAndTimerTogetherReachHyperIncrease) {
  DcqcnParameters p = paper();
  p.threshold = 2;
  p.byte_counter_bytes = 1000;
  ReactionPoint rp(p);
  rp.cnp(0);
  rp.cnp(1);  // RC 25, RT 50
  ASSERT_EQ(rp.rate_bps(), 25 * kGbps);
  rp.sent(1000, 2);  // byte event 1 of F=2: fast recovery
  EXPECT_EQ(rp.rate_bps(), 37.5 * kGbps);
  rp.sent(1000, 3);  // byte event 2: one counter at F, additive
  EXPECT_EQ(rp.target_bps(), 50 * kGbps + 40e6);
  rp.advance(1 + 55 * kUs);   // timer event 1: still additive
  rp.advance(1 + 110 * kUs);  // timer event 2: both at F: hyper, i = 1
  EXPECT_EQ(rp.timer_events(), 2u);
  EXPECT_EQ(rp.target_bps(), 50 * kGbps + 2 * 40e6 + 200e6);
  rp.sent(1000, 1 + 110 * kUs);  // byte event 3, timer 2: i = 1 again
  EXPECT_EQ(rp.target_bps(), 50 * kGbps + 2 * 40e6 + 2 * 200e6);
}

TEST(DcqcnPaper, LimiterLetsGoBackAtLineRate) {
  const DcqcnParameters p = paper();
  ReactionPoint rp(p);
  rp.cnp(0);
  rp.advance(200 * 55 * kUs);
  EXPECT_FALSE(rp.active());
  EXPECT_EQ(rp.rate_bps(), 100 * kGbps);
  EXPECT_EQ(rp.target_bps(), 100 * kGbps);
}

TEST(DcqcnPaper, CutsStopAtTheMinimumRate) {
  const DcqcnParameters p = paper();
  ReactionPoint rp(p);
  for (int i = 0; i < 20; ++i) rp.cnp(static_cast<std::uint64_t>(i));
  EXPECT_EQ(rp.rate_bps(), 100e6);
}

TEST(DcqcnPaper, StateDoesNotDependOnHowOftenItIsLookedAt) {
  const DcqcnParameters p = paper();
  ReactionPoint seldom(p), often(p);
  seldom.cnp(0);
  often.cnp(0);
  for (std::uint64_t t = 0; t <= 700 * kUs; t += 7 * kUs) often.advance(t);
  seldom.advance(700 * kUs);
  EXPECT_EQ(seldom.rate_bps(), often.rate_bps());
  EXPECT_EQ(seldom.alpha(), often.alpha());
}

TEST(DcqcnFirmware, TwoCnpsWithinOneMonitorPeriodCutOnce) {
  const DcqcnParameters p = firmware();
  ReactionPoint rp(p);
  EXPECT_TRUE(rp.cnp(100 * kUs));
  EXPECT_EQ(rp.rate_bps(), 50 * kGbps);       // alpha 1024/1024, rpg_gd 11: (1 - 1024/2048)
  EXPECT_FALSE(rp.cnp(100 * kUs + 3 * kUs));  // inside rate_reduce_monitor_period
  EXPECT_EQ(rp.rate_bps(), 50 * kGbps);
  EXPECT_TRUE(rp.cnp(100 * kUs + 4 * kUs));  // the period has passed
  EXPECT_LT(rp.rate_bps(), 50 * kGbps);
}

TEST(DcqcnFirmware, RpgGdIsTheLog2OfTheDivisorAndMinDecFacBoundsTheCut) {
  DcqcnParameters p = firmware();
  p.decrease_log2 = 13;  // RC x (1 - 1024 / 8192)
  ReactionPoint rp(p);
  rp.cnp(0);
  EXPECT_EQ(rp.rate_bps(), 87.5 * kGbps);
  DcqcnParameters q = firmware();
  q.decrease_log2 = 10;  // (1 - 1024 / 1024): to zero, but rpg_min_dec_fac keeps half
  ReactionPoint bounded(q);
  bounded.cnp(0);
  EXPECT_EQ(bounded.rate_bps(), 50 * kGbps);
}

TEST(DcqcnFirmware, FirstCnpSetsItsRateAndTargetFollowsOnlyWhenClamped) {
  DcqcnParameters p = firmware();
  p.first_cnp_rate_bps = 10 * kGbps;
  ReactionPoint rp(p);
  rp.cnp(0);
  EXPECT_EQ(rp.rate_bps(), 10 * kGbps);  // current and target both
  EXPECT_EQ(rp.target_bps(), 10 * kGbps);
  rp.cnp(10 * kUs);  // clamp_tgt_rate off: RT stays
  // Alpha meanwhile: up in the first 1 us period (the CNP's: (1 - g) + g = 1),
  // down in the nine after it.
  double alpha = 1;
  for (int i = 0; i < 9; ++i) alpha *= 1 - 5.0 / 1024;
  EXPECT_DOUBLE_EQ(rp.rate_bps(), 10 * kGbps * (1 - alpha / 2));
  EXPECT_EQ(rp.target_bps(), 10 * kGbps);
  DcqcnParameters q = firmware();
  q.clamp_target = true;
  ReactionPoint clamped(q);
  clamped.cnp(0);
  clamped.cnp(10 * kUs);
  EXPECT_EQ(clamped.target_bps(), 50 * kGbps);
}

TEST(DcqcnFirmware, WithoutClampTheTargetFollowsTheFirstCutAfterAnIncrease) {
  DcqcnParameters p = firmware();
  p.g = 0;  // alpha stays 1: every cut halves
  p.timer_ps = 10 * kUs;
  ReactionPoint rp(p);
  rp.cnp(0);        // RC 50, RT 100
  rp.cnp(5 * kUs);  // no increase since: RT stays 100, RC 25
  EXPECT_EQ(rp.rate_bps(), 25 * kGbps);
  EXPECT_EQ(rp.target_bps(), 100 * kGbps);
  rp.advance(15 * kUs);  // a timer event: F = 1, additive: RT 100 (capped), RC 62.5
  EXPECT_EQ(rp.rate_bps(), 62.5 * kGbps);
  rp.cnp(16 * kUs);  // the first cut after an increase: RT = 62.5, RC 31.25
  EXPECT_EQ(rp.target_bps(), 62.5 * kGbps);
  EXPECT_EQ(rp.rate_bps(), 31.25 * kGbps);
}

TEST(DcqcnFirmware, AlphaMovesOncePerPeriodUpOnlyIfACnpCame) {
  DcqcnParameters p = firmware();
  p.initial_alpha = 0.5;
  p.timer_ps = 1000 * kUs;
  ReactionPoint rp(p);
  rp.cnp(0);  // periods start: the first ends at 1 us with a CNP in it
  EXPECT_EQ(rp.alpha(), 0.5);
  rp.advance(1 * kUs);
  const double g = 5.0 / 1024;
  EXPECT_DOUBLE_EQ(rp.alpha(), (1 - g) * 0.5 + g);
  const double up = rp.alpha();
  rp.advance(3 * kUs);  // two periods without
  EXPECT_DOUBLE_EQ(rp.alpha(), up * (1 - g) * (1 - g));
}

TEST(RateLimiters, PacesALimitedQpAtItsRateAndWakesAtTheEarliest) {
  const DcqcnParameters p = paper();
  RateLimiters limiters(p);
  EXPECT_EQ(limiters.next_send_ps(7), 0u);
  limiters.sent(7, 1000, 0);  // no limiter yet: not paced
  EXPECT_EQ(limiters.next_send_ps(7), 0u);
  EXPECT_TRUE(limiters.cnp(7, true, 0));  // 50 Gbit/s
  EXPECT_FALSE(limiters.cnp(9, false, 0));
  EXPECT_EQ(limiters.stats().rp_cnp_handled, 1u);
  EXPECT_EQ(limiters.stats().rp_cnp_ignored, 1u);
  limiters.sent(7, 1000, 100);  // 8000 bits at 50 Gbit/s: 160 ns
  EXPECT_EQ(limiters.next_send_ps(7), 100u + 160'000);
  limiters.sent(7, 1000, 200);  // sent early: waits after the previous slot
  EXPECT_EQ(limiters.next_send_ps(7), 100u + 320'000);
  EXPECT_EQ(limiters.next_wake_ps(300), 100u + 160'000);
  EXPECT_EQ(limiters.next_wake_ps(100 + 160'000), 100u + 320'000);
  EXPECT_EQ(limiters.next_wake_ps(1'000'000), 0u);
}

TEST(RateLimiters, OffIgnoresEveryCnp) {
  RateLimiters limiters(DcqcnParameters{});
  EXPECT_FALSE(limiters.enabled());
  EXPECT_FALSE(limiters.cnp(1, true, 0));
  EXPECT_EQ(limiters.stats().rp_cnp_ignored, 1u);
  EXPECT_EQ(limiters.next_send_ps(1), 0u);
}

}  // namespace
}  // namespace rnicsim
