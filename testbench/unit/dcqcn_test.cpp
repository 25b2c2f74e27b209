// DCQCN's reaction point (nic/congestion/dcqcn.hpp, rate_limiters.hpp):
// hand-worked sequences. The model is fixed point (whole bit/s, alpha in
// 2^-20ths, divisions rounding down), so every value is compared exactly.
#include "nic/congestion/dcqcn.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "nic/congestion/rate_limiter.hpp"
#include "nic/congestion/rate_limiters.hpp"

namespace rnicsim {
namespace {

constexpr std::uint64_t kUs = 1'000'000;  // ps
constexpr std::uint64_t kGbps = 1'000'000'000;
constexpr std::uint32_t kOne = kAlphaOne;

DcqcnParameters paper() {
  DcqcnParameters p;
  p.preset = DcqcnPreset::kPaper;
  p.line_rate_bps = 100 * kGbps;
  p.g = kOne / 256;
  p.initial_alpha = kOne;
  p.cut_shift = 21;  // alpha / 2
  p.alpha_period_ps = 55 * kUs;
  p.timer_ps = 55 * kUs;
  p.byte_counter_bytes = 10'000'000;
  p.threshold = 5;
  p.additive_increase_bps = 40'000'000;
  p.hyper_increase_bps = 200'000'000;
  p.min_rate_bps = 100'000'000;
  return p;
}

DcqcnParameters firmware() {
  DcqcnParameters p;
  p.preset = DcqcnPreset::kFirmware;
  p.line_rate_bps = 100 * kGbps;
  p.g = 5 << 10;           // dce_tcp_g 1019: (1024 - 1019) / 1024
  p.initial_alpha = kOne;  // 1024/1024: cuts below are exact halvings
  p.cut_shift = 10 + 11;   // rpg_gd 11
  p.min_decrease_percent = 50;
  p.min_rate_bps = 1'000'000;
  p.alpha_period_ps = 1 * kUs;
  p.reduce_monitor_ps = 4 * kUs;
  p.timer_ps = 300 * kUs;
  p.byte_counter_bytes = 32767;
  p.threshold = 1;
  p.additive_increase_bps = 5'000'000;
  p.hyper_increase_bps = 50'000'000;
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
  EXPECT_EQ(rp.alpha(), kOne);  // (1 - g) x 1 + g
  // Nothing happens until the first timer event, T after the cut.
  rp.advance(t0 + 55 * kUs - 1);
  EXPECT_EQ(rp.rate_bps(), 50 * kGbps);
  const std::uint64_t expected[] = {75'000'000'000, 87'500'000'000, 93'750'000'000, 96'875'000'000,
                                    98'437'500'000};
  for (int k = 1; k <= 5; ++k) {
    rp.advance(t0 + static_cast<std::uint64_t>(k) * 55 * kUs);
    EXPECT_EQ(rp.timer_events(), static_cast<std::uint32_t>(k));
    EXPECT_EQ(rp.rate_bps(), expected[k - 1]) << "timer event " << k;
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
  EXPECT_EQ(rp.alpha(), kOne);
  rp.advance(3 * 55 * kUs);
  // (255/256)^3 in 2^-20ths, each step rounded down: 1044480, 1040400,
  // floor(1040400 x 1044480 / 2^20) = 1036335.
  EXPECT_EQ(rp.alpha(), 1036335u);
  // A CNP cuts by the decayed alpha: 50e9 - floor(50e9 x 1036335 / 2^21);
  // then alpha = floor(1036335 x 255/256) + g.
  rp.cnp(3 * 55 * kUs + 1);
  EXPECT_EQ(rp.rate_bps(), 25'291'848'183u);
  EXPECT_EQ(rp.alpha(), 1036382u);
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
  EXPECT_EQ(rp.target_bps(), 50 * kGbps + 40'000'000);
  rp.advance(1 + 55 * kUs);   // timer event 1: still additive
  rp.advance(1 + 110 * kUs);  // timer event 2: both at F: hyper, i = 1
  EXPECT_EQ(rp.timer_events(), 2u);
  EXPECT_EQ(rp.target_bps(), 50 * kGbps + 2 * 40'000'000 + 200'000'000);
  rp.sent(1000, 1 + 110 * kUs);  // byte event 3, timer 2: i = 1 again
  EXPECT_EQ(rp.target_bps(), 50 * kGbps + 2 * 40'000'000 + 2 * 200'000'000);
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
  EXPECT_EQ(rp.rate_bps(), 100'000'000u);
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
  p.cut_shift = 10 + 13;  // rpg_gd 13: RC x (1 - 1024 / 8192)
  ReactionPoint rp(p);
  rp.cnp(0);
  EXPECT_EQ(rp.rate_bps(), 87'500'000'000u);
  DcqcnParameters q = firmware();
  q.cut_shift = 10 + 10;  // rpg_gd 10: (1 - 1024 / 1024): to 0, rpg_min_dec_fac keeps half
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
  // down in the nine after it, each step rounded down: 1003382; the cut is
  // 10e9 - floor(10e9 x 1003382 / 2^21).
  EXPECT_EQ(rp.alpha(), 1003382u);
  EXPECT_EQ(rp.rate_bps(), 5'215'501'786u);
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
  EXPECT_EQ(rp.rate_bps(), 62'500'000'000u);
  rp.cnp(16 * kUs);  // the first cut after an increase: RT = 62.5, RC 31.25
  EXPECT_EQ(rp.target_bps(), 62'500'000'000u);
  EXPECT_EQ(rp.rate_bps(), 31'250'000'000u);
}

TEST(DcqcnFirmware, AlphaMovesOncePerPeriodUpOnlyIfACnpCame) {
  DcqcnParameters p = firmware();
  p.initial_alpha = kOne / 2;
  p.timer_ps = 1000 * kUs;
  ReactionPoint rp(p);
  rp.cnp(0);  // periods start: the first ends at 1 us with a CNP in it
  EXPECT_EQ(rp.alpha(), kOne / 2);
  rp.advance(1 * kUs);
  EXPECT_EQ(rp.alpha(), 526848u);  // 2^19 x 1019/1024 + 5 x 2^10
  rp.advance(3 * kUs);             // two periods without: floor(x 1019/1024) twice
  EXPECT_EQ(rp.alpha(), 521715u);
}

TEST(DcqcnPaper, AlphaAtZeroStopsItsTimerUntilTheNextCnp) {
  DcqcnParameters p = paper();
  p.g = kOne;  // alpha = g after a CNP, then (1 - g) alpha = 0 a period later
  p.timer_ps = 1000 * kUs;
  ReactionPoint rp(p);
  rp.cnp(0);
  EXPECT_EQ(rp.alpha(), kOne);
  rp.advance(55 * kUs);
  EXPECT_EQ(rp.alpha(), 0u);
  // The timer is stopped: a CNP long after is cut by alpha 0 (no cut), sets
  // alpha to g, and restarts the timer a period from then.
  rp.cnp(400 * kUs + 3);
  EXPECT_EQ(rp.alpha(), kOne);
  rp.advance(455 * kUs + 2);
  EXPECT_EQ(rp.alpha(), kOne);
  rp.advance(455 * kUs + 3);
  EXPECT_EQ(rp.alpha(), 0u);
}

TEST(DcqcnFirmware, AlphaAtZeroRestartsItsPeriodsAtTheNextCnp) {
  DcqcnParameters p = firmware();
  p.g = kOne;  // one period without a CNP takes alpha to 0
  p.timer_ps = 1000 * kUs;
  ReactionPoint rp(p);
  rp.cnp(0);            // periods end at 1, 2, ... us
  rp.advance(2 * kUs);  // 1 us: up, alpha = g; 2 us: down to 0, the timer stops
  EXPECT_EQ(rp.alpha(), 0u);
  rp.cnp(10 * kUs + 500'000);  // periods start again: the next ends at 11.5 us
  rp.advance(11 * kUs + 499'999);
  EXPECT_EQ(rp.alpha(), 0u);
  rp.advance(11 * kUs + 500'000);
  EXPECT_EQ(rp.alpha(), kOne);  // the period held a CNP: up by g
}

TEST(DcqcnPaper, TimersWrapWithTheTime) {
  // Times are modulo 2^64: a cut 10 us before the wrap has its timer event
  // 45 us after it, as one 2^64 ps earlier would.
  const DcqcnParameters p = paper();
  ReactionPoint wrapped(p), plain(p);
  const std::uint64_t before_wrap = 0 - 10 * kUs;
  wrapped.cnp(before_wrap);
  plain.cnp(1000 * kUs);
  wrapped.advance(45 * kUs - 1);
  plain.advance(1055 * kUs - 1);
  EXPECT_EQ(wrapped.timer_events(), 0u);
  wrapped.advance(45 * kUs);
  plain.advance(1055 * kUs);
  EXPECT_EQ(wrapped.timer_events(), 1u);
  EXPECT_EQ(wrapped.rate_bps(), plain.rate_bps());
  EXPECT_EQ(wrapped.alpha(), plain.alpha());
}

TEST(RateLimiter, PacingRoundsUpToTheNextPicosecond) {
  EXPECT_EQ(pacing_ps(1000, 50 * kGbps), 160'000u);                  // exact
  EXPECT_EQ(pacing_ps(1000, 75 * kGbps), 106'667u);                  // 106,666.67
  EXPECT_EQ(pacing_ps(kMaxPacedBytes, 1000), 524'280'000'000'000u);  // 1 kbit/s: 524 s
}

TEST(RateLimiter, ModelBlockOpensOnlyItsSlots) {
  const DcqcnParameters p = paper();
  const auto block = make_model_rate_limiter(p, 2);
  const RateLimiterState opened = block->open(1, 5 * kUs);
  EXPECT_FALSE(opened.active);
  EXPECT_EQ(opened.rate_bps, 100 * kGbps);
  EXPECT_EQ(opened.alpha, kOne);
  EXPECT_EQ(opened.next_send_ps, 5 * kUs);
  EXPECT_THROW(block->open(2, 5 * kUs), std::out_of_range);
  EXPECT_THROW(block->cnp(0, 5 * kUs), std::logic_error);  // never opened
  EXPECT_TRUE(block->cnp(1, 6 * kUs).cut);
  // Limited at 50 Gbit/s: the next packet waits this one's 1000 bytes from now.
  EXPECT_EQ(block->sent(1, 1000, 7 * kUs).next_send_ps, 7 * kUs + 160'000);
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

// The RTL block (dcqcn.impl rtl) holds 1024 QPs: the 1025th QP to get a CNP
// is refused, naming the key, before it takes a slot (the NIC stops the run
// with the message); the QPs it holds go on as before.
TEST(RateLimiters, TheRtlBlockRefusesOneQpMoreThanItsSlots) {
  RateLimiters limiters(paper(), BlockImpl::kRtl);
  for (std::uint32_t qpn = 0; qpn < 1024; ++qpn) ASSERT_TRUE(limiters.cnp(qpn, true, 0));
  try {
    limiters.cnp(5000, true, 1000);
    FAIL() << "the 1025th QP took a slot";
  } catch (const std::length_error& full) {
    EXPECT_STREQ(full.what(),
                 "dcqcn.impl rtl: the rate-limiter block holds 1024 QPs, and QP 5000 is one more "
                 "to get a CNP");
  }
  EXPECT_EQ(limiters.stats().rp_cnp_handled, 1024u);
  EXPECT_TRUE(limiters.cnp(3, true, 1000));  // a second cut of a QP it holds
  EXPECT_EQ(limiters.stats().rp_cnp_handled, 1025u);
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
