// The RTL DCQCN rate limiter (rtl/rate_limiter) against its model twin
// (nic/congestion/rate_limiter.hpp): the same operations into both (QPs
// opened, CNPs, packets sent, looks as time passes), and after each a
// scoreboard compares the whole answer: whether the CNP cut, whether the
// limiter is active, RC, RT, alpha, both event counts and the next-send
// time, to the bit and the picosecond.
//
// Stimulus: 16 QPs under both presets and several parameter sets, random
// operations at random times (steps from 0 to past several timer periods,
// some long enough for alpha to decay to 0), packets of 64 to 65535 wire
// bytes, with the RTL's operations held back by random stalls; runs that
// start just before the time wraps; and directed corners at the limiter's
// extremes (a cut to the rate floor, a floor at line rate, cuts to 0 held by
// the minimum decrease, hyper increase past line rate, the first CNP's rate
// beyond the line's). The functional coverage points (every stage of DCQCN:
// cut, ignored CNP, the first CNP's rate, fast recovery, additive and hyper
// increase, the line-rate cap, the let-go, the rate floor, alpha up and
// down, alpha at 0, paced packets, wrapped time) are counted and each must
// be reached.
#include <gtest/gtest.h>
#include <verilated.h>

#include <cstdint>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "Vrate_limiter.h"
#include "Vrate_limiter___024root.h"
#include "Vrate_limiter_fault.h"
#include "Vrate_limiter_fault___024root.h"
#include "cosim/mode.hpp"
#include "cosim/stalls.hpp"
#include "nic/congestion/rate_limiter.hpp"
#include "nic/congestion/rate_limiter_rtl.hpp"

namespace rnicsim::cosim {
namespace {

constexpr std::uint64_t kUs = 1'000'000;  // ps
constexpr std::uint64_t kGbps = 1'000'000'000;
constexpr std::uint32_t kSlots = 16;  // Vrate_limiter: SLOT_BITS 4
// The most the keys allow (congestion_config.cpp, link_config.cpp): a link
// of 10^6 Gbit/s; minimum and first-CNP rates and steps of 10^6 Mbit/s;
// periods of 10^6 us.
constexpr std::uint64_t kMostLineRateBps = 1'000'000'000'000'000;
constexpr std::uint64_t kMostStepBps = 1'000'000'000'000;
constexpr std::uint64_t kMostPeriodPs = 1'000'000 * kUs;
constexpr std::uint64_t kMostByteCounterBytes = std::uint64_t{1} << 40;  // and the bridge's
constexpr std::uint64_t kOnes40 = (std::uint64_t{1} << 40) - 1;          // the 40-bit ports' most

// The coverage build (scripts/rtl_coverage) runs a fifth of the random
// operations: its line and toggle counting makes each of this block's cycles
// some 700 times slower (178 s for the paper's 20,000 operations at -O0).
#ifdef RNICSIM_RTL_COVERAGE
constexpr std::uint64_t kOperationsDivisor = 5;
#else
constexpr std::uint64_t kOperationsDivisor = 1;
#endif

// The stages of DCQCN the suite reached, each of which it must reach.
struct Coverage {
  std::uint64_t cuts = 0;
  std::uint64_t ignored_cnps = 0;    // firmware: within the monitor period
  std::uint64_t first_cnp_rate = 0;  // firmware: rate_to_set_on_first_cnp
  std::uint64_t fast_recovery = 0;   // increase events while both counts are below F
  std::uint64_t additive = 0;        // one count at F
  std::uint64_t hyper = 0;           // both
  std::uint64_t target_at_line = 0;  // RT capped at line rate while limited
  std::uint64_t let_go = 0;          // back at line rate
  std::uint64_t at_rate_floor = 0;   // a cut stopped by the minimum rate
  std::uint64_t alpha_up = 0;        // alpha rose with no cut (firmware: a CNP in the period)
  std::uint64_t alpha_down = 0;
  std::uint64_t alpha_zero = 0;  // decayed to 0: its timer stops
  std::uint64_t paced = 0;       // a packet that moved the next-send time
  std::uint64_t wrapped = 0;     // an operation after the time wrapped
  std::uint64_t wrapped_timer_counts = 0;  // a timer event count past 2^32 - 1 back to a few
  std::uint64_t wrapped_byte_counts = 0;   // the same of the byte counter's
};

// Drives both blocks with the same operations and compares what they answer.
class Scoreboard {
 public:
  Scoreboard(const DcqcnParameters& p, std::unique_ptr<RateLimiter> rtl)
      : p_(p), model_(make_model_rate_limiter(p, kSlots)), rtl_(std::move(rtl)) {}

  RateLimiterState open(std::uint32_t slot, std::uint64_t now) {
    const RateLimiterState m = model_->open(slot, now);
    check("open", slot, now, m, rtl_->open(slot, now));
    last_[slot] = m;
    return m;
  }
  RateLimiterState cnp(std::uint32_t slot, std::uint64_t now) {
    const RateLimiterState m = model_->cnp(slot, now);
    check("cnp", slot, now, m, rtl_->cnp(slot, now));
    const RateLimiterState& before = last_[slot];
    if (m.cut) {
      ++coverage.cuts;
      coverage.at_rate_floor += m.rate_bps == p_.min_rate_bps;
      coverage.first_cnp_rate +=
          p_.first_cnp_rate_bps != 0 && !before.active && m.rate_bps == m.target_bps;
    } else {
      ++coverage.ignored_cnps;
    }
    record(slot, m);
    return m;
  }
  RateLimiterState sent(std::uint32_t slot, std::uint64_t bytes, std::uint64_t now) {
    const RateLimiterState m = model_->sent(slot, bytes, now);
    check("sent", slot, now, m, rtl_->sent(slot, bytes, now));
    coverage.paced += m.next_send_ps != last_[slot].next_send_ps;
    record(slot, m);
    return m;
  }
  RateLimiterState look(std::uint32_t slot, std::uint64_t now) {
    const RateLimiterState m = model_->look(slot, now);
    check("look", slot, now, m, rtl_->look(slot, now));
    record(slot, m);
    return m;
  }
  // The same state into both through their backdoors.
  void load(std::uint32_t slot, const RateLimiterSlot& state) {
    model_->load(slot, state);
    rtl_->load(slot, state);
    last_[slot] = slot_answer(state.reaction_point, state.next_send_ps, false);
  }

  std::vector<std::string> mismatches;
  Coverage coverage;

  std::string report() const {
    std::ostringstream out;
    out << mismatches.size() << " mismatches in " << operations_ << " operations";
    for (std::size_t i = 0; i < mismatches.size() && i < 10; ++i) out << "\n  " << mismatches[i];
    return out.str();
  }

 private:
  static std::string describe(const RateLimiterState& s) {
    std::ostringstream out;
    out << (s.cut ? "cut " : "") << (s.active ? "active" : "idle") << " RC " << s.rate_bps << " RT "
        << s.target_bps << " alpha " << s.alpha << " T " << s.timer_events << " BC "
        << s.byte_events << " next " << s.next_send_ps;
    return out.str();
  }

  void check(const char* what, std::uint32_t slot, std::uint64_t now, const RateLimiterState& m,
             const RateLimiterState& r) {
    ++operations_;
    coverage.wrapped += operations_ > 1 && now < last_now_;
    last_now_ = now;
    if (m != r) {
      mismatches.push_back(std::string(what) + " slot " + std::to_string(slot) + " at " +
                           std::to_string(now) + ": model " + describe(m) + ", RTL " + describe(r));
    }
  }

  // The stages an operation went through, from the state before and after.
  void record(std::uint32_t slot, const RateLimiterState& after) {
    const RateLimiterState& before = last_[slot];
    const bool more_events =
        after.timer_events + after.byte_events > before.timer_events + before.byte_events;
    if (more_events && !after.cut) {
      const std::uint32_t least = std::min(after.timer_events, after.byte_events);
      const std::uint32_t most = std::max(after.timer_events, after.byte_events);
      if (least >= p_.threshold) {
        ++coverage.hyper;
      } else if (most >= p_.threshold) {
        ++coverage.additive;
      } else {
        ++coverage.fast_recovery;
      }
    }
    coverage.target_at_line += after.active && after.target_bps == p_.line_rate_bps;
    coverage.let_go += before.active && !after.active;
    if (!after.cut) {
      coverage.alpha_up += after.alpha > before.alpha;
      coverage.alpha_down += after.alpha < before.alpha;
    }
    coverage.alpha_zero += after.alpha == 0 && before.alpha != 0;
    coverage.wrapped_timer_counts += after.timer_events < before.timer_events && !after.cut;
    coverage.wrapped_byte_counts += after.byte_events < before.byte_events && !after.cut;
    last_[slot] = after;
  }

  DcqcnParameters p_;
  std::unique_ptr<RateLimiter> model_;
  std::unique_ptr<RateLimiter> rtl_;
  RateLimiterState last_[kSlots];
  std::uint64_t operations_ = 0;
  std::uint64_t last_now_ = 0;
};

DcqcnParameters paper() {
  DcqcnParameters p;
  p.preset = DcqcnPreset::kPaper;
  p.line_rate_bps = 100 * kGbps;
  p.g = kAlphaOne / 256;
  p.initial_alpha = kAlphaOne;
  p.cut_shift = 21;
  p.min_rate_bps = 100'000'000;
  // Shorter than the paper's 55 us and 10 MB, and as many timer as
  // byte-counter events between a QP's operations in the random runs, so
  // that a run reaches every stage (the arithmetic does not depend on them).
  p.alpha_period_ps = 3 * kUs;
  p.timer_ps = 50 * kUs;
  p.byte_counter_bytes = 4'000;
  p.threshold = 5;
  p.additive_increase_bps = 40'000'000;
  p.hyper_increase_bps = 200'000'000;
  return p;
}

DcqcnParameters firmware() {
  DcqcnParameters p;
  p.preset = DcqcnPreset::kFirmware;
  p.line_rate_bps = 100 * kGbps;
  p.g = 5 << 10;
  p.initial_alpha = 1023 << 10;
  p.cut_shift = 10 + 11;
  p.min_decrease_percent = 50;
  p.min_rate_bps = 1'000'000;
  p.alpha_period_ps = 1 * kUs;
  p.reduce_monitor_ps = 4 * kUs;
  p.timer_ps = 30 * kUs;
  p.byte_counter_bytes = 32767;
  p.threshold = 1;
  p.additive_increase_bps = 5'000'000;
  p.hyper_increase_bps = 50'000'000;
  p.clamp_target = false;
  return p;
}

template <typename Top>
std::unique_ptr<RateLimiter> rtl_block(const DcqcnParameters& p, std::mt19937_64& stall_rng,
                                       double stall) {
  return std::make_unique<RtlRateLimiter<Top, 4>>(
      p, [&stall_rng, stall] { return chance(stall_rng, stall); });
}

// `operations` random operations on the 16 QPs, opened already, from
// `start` (which may be just before the time wraps).
void random_operations(Scoreboard& board, std::uint64_t operations, std::mt19937_64& rng,
                       std::uint64_t start, std::uint64_t period) {
  operations /= kOperationsDivisor;
  std::uint64_t now = start;
  for (std::uint64_t i = 0; i < operations; ++i) {
    // Every 2000 operations a pause long enough for alpha to decay to 0
    // (some thousands of its periods).
    if (i % 2000 == 999) now += 20'000 * period;
    switch (rng() % 8) {
      case 0:
        now += rng() % 40 * period;
        break;
      case 1:
        break;  // the same instant
      default:
        now += rng() % (2 * period);
        break;
    }
    const auto slot = static_cast<std::uint32_t>(rng() % kSlots);
    switch (rng() % 6) {
      case 0:
        board.cnp(slot, now);
        break;
      case 1:
        board.look(slot, now);
        break;
      default: {
        const std::uint64_t bytes = rng() % 16 == 0 ? kMaxPacedBytes : 64 + rng() % 9000;
        board.sent(slot, bytes, now);
        break;
      }
    }
  }
}

// The 16 QPs opened at `start`, then random operations.
void random_run(Scoreboard& board, std::uint64_t operations, std::mt19937_64& rng,
                std::uint64_t start, std::uint64_t period) {
  for (std::uint32_t slot = 0; slot < kSlots; ++slot) board.open(slot, start);
  random_operations(board, operations, rng, start, period);
}

void expect_every_stage_reached(const Coverage& c, bool firmware_with_first_rate) {
  EXPECT_GT(c.cuts, 0u);
  // The firmware's F is 1 (rpg_threshold's default): its first event is
  // already additive, so only the paper's runs recover fast.
  if (!firmware_with_first_rate) {
    EXPECT_GT(c.fast_recovery, 0u);
  }
  EXPECT_GT(c.additive, 0u);
  EXPECT_GT(c.hyper, 0u);
  EXPECT_GT(c.target_at_line, 0u);
  EXPECT_GT(c.let_go, 0u);
  EXPECT_GT(c.alpha_down, 0u);
  EXPECT_GT(c.alpha_zero, 0u);
  EXPECT_GT(c.paced, 0u);
  if (firmware_with_first_rate) {
    EXPECT_GT(c.ignored_cnps, 0u);
    EXPECT_GT(c.first_cnp_rate, 0u);
    EXPECT_GT(c.alpha_up, 0u);
  }
}

TEST(RateLimiterCosim, PaperRandomOperationsUnderStallsAgreeWithTheModel) {
  if (cosim_mode() != CosimMode::kCrossCheck) GTEST_SKIP() << "compares both sides";
  std::mt19937_64 rng(0xDC01), stalls(0x57A1);
  const DcqcnParameters p = paper();
  Scoreboard board(p, rtl_block<Vrate_limiter>(p, stalls, 0.3));
  random_run(board, 20000, rng, 0, 2 * kUs);
  EXPECT_TRUE(board.mismatches.empty()) << board.report();
  expect_every_stage_reached(board.coverage, false);
}

TEST(RateLimiterCosim, FirmwareRandomOperationsUnderStallsAgreeWithTheModel) {
  if (cosim_mode() != CosimMode::kCrossCheck) GTEST_SKIP() << "compares both sides";
  for (const bool clamp : {false, true}) {
    std::mt19937_64 rng(0xDC02 + clamp), stalls(0x57A2 + clamp);
    DcqcnParameters p = firmware();
    p.clamp_target = clamp;
    p.first_cnp_rate_bps = clamp ? 0 : 20 * kGbps;
    Scoreboard board(p, rtl_block<Vrate_limiter>(p, stalls, 0.3));
    // Steps of about an alpha period: each operation has tens of them due, not
    // hundreds (a cycle each in the RTL).
    random_run(board, 20000, rng, 0, p.alpha_period_ps);
    EXPECT_TRUE(board.mismatches.empty()) << "clamp " << clamp << ": " << board.report();
    if (!clamp) expect_every_stage_reached(board.coverage, true);
  }
}

// Timers wrapping: runs that start 100 us before the time wraps at 2^64 ps.
TEST(RateLimiterCosim, TimeWrappingAgreesWithTheModel) {
  if (cosim_mode() != CosimMode::kCrossCheck) GTEST_SKIP() << "compares both sides";
  for (const bool fw : {false, true}) {
    std::mt19937_64 rng(0xDC03 + fw), stalls(0x57A3 + fw);
    const DcqcnParameters p = fw ? firmware() : paper();
    Scoreboard board(p, rtl_block<Vrate_limiter>(p, stalls, 0.1));
    random_run(board, 3000, rng, 0 - 100 * kUs, fw ? 3 * kUs : 2 * kUs);
    EXPECT_TRUE(board.mismatches.empty()) << board.report();
    EXPECT_GT(board.coverage.wrapped, 0u);
    EXPECT_GT(board.coverage.cuts, 0u);
  }
}

// The limiter's extremes: the widest values its ports carry and the
// corners of its arithmetic.
TEST(RateLimiterCosim, ExtremesAgreeWithTheModel) {
  if (cosim_mode() != CosimMode::kCrossCheck) GTEST_SKIP() << "compares both sides";
  std::vector<DcqcnParameters> sets;
  {
    // 800 Gbit/s, rpg_gd 0 (a cut would take 1024 times alpha: to 0, held
    // by the minimum decrease of 1%), a floor of 1 kbit/s, hyper steps that
    // pass line rate at once, a first CNP's rate above line rate (clamped;
    // 10^6 Mbit/s, the key's most).
    DcqcnParameters p = firmware();
    p.line_rate_bps = 800 * kGbps;
    p.cut_shift = 10;
    p.min_decrease_percent = 1;
    p.min_rate_bps = 1000;
    p.hyper_increase_bps = kMostStepBps;
    p.first_cnp_rate_bps = kMostStepBps;
    p.g = kAlphaOne;
    p.initial_alpha = kAlphaOne;
    p.byte_counter_bytes = 64;
    p.threshold = 31;
    sets.push_back(p);
  }
  {
    // The floor at line rate: a cut changes nothing, the first increase lets go.
    DcqcnParameters p = paper();
    p.min_rate_bps = p.line_rate_bps;
    sets.push_back(p);
  }
  {
    // g = 1 and the largest periods, byte counter, F and steps the keys
    // allow (1 s, 2^40 bytes, 2^20 events, 10^6 Mbit/s).
    DcqcnParameters p = paper();
    p.g = kAlphaOne;
    p.alpha_period_ps = kMostPeriodPs;
    p.timer_ps = kMostPeriodPs;
    p.byte_counter_bytes = std::uint64_t{1} << 40;
    p.threshold = 1 << 20;
    p.additive_increase_bps = kMostStepBps;
    p.hyper_increase_bps = kMostStepBps;
    sets.push_back(p);
  }
  {
    // A rate floor of 1 bit/s and 400 Gbit/s: pacing's longest waits.
    DcqcnParameters p = paper();
    p.line_rate_bps = 400 * kGbps;
    p.min_rate_bps = 1;
    p.cut_shift = 20;  // alpha x RC: a cut at alpha 1 goes to the floor at once
    sets.push_back(p);
  }
  {
    // The fastest link a key allows, 10^6 Gbit/s, with the firmware's
    // largest minimum rate, first-CNP rate and steps.
    DcqcnParameters p = firmware();
    p.line_rate_bps = kMostLineRateBps;
    p.min_rate_bps = kMostStepBps;
    p.first_cnp_rate_bps = kMostStepBps;
    p.additive_increase_bps = kMostStepBps;
    p.hyper_increase_bps = kMostStepBps;
    sets.push_back(p);
  }
  for (std::size_t i = 0; i < sets.size(); ++i) {
    std::mt19937_64 rng(0xDC10 + i), stalls(0x57B0 + i);
    Scoreboard board(sets[i], rtl_block<Vrate_limiter>(sets[i], stalls, 0.2));
    random_run(board, 3000, rng, 0, 7 * kUs);
    EXPECT_TRUE(board.mismatches.empty()) << "set " << i << ": " << board.report();
    EXPECT_GT(board.coverage.cuts, 0u) << "set " << i;
    // The floor at line rate (set 1) and a cut to 1 bit/s at once (set 3):
    // cuts that stop at the minimum rate.
    if (i == 1 || i == 3) {
      EXPECT_GT(board.coverage.at_rate_floor, 0u) << "set " << i;
    }
  }
}

// A random value of up to `bits` bits, its length random too, so that both
// the low and the high bits of a port move across a run.
std::uint64_t random_width(std::mt19937_64& rng, unsigned bits) {
  const unsigned length = 1 + static_cast<unsigned>(rng() % bits);
  return rng() >> (64 - length);
}

// Random configurations across the ranges the block's ports carry (a line
// rate up to 10^15 bit/s, as a link's rate may be; the monitor and timer
// periods, B, steps and the minimum and first-CNP rates up to 2^40; alpha
// periods up to 2^30 ps, so that a catch-up stays some thousands of cycles
// (EveryPortAtItsMost takes them to 2^40);
// any g, initial alpha, cut shift, percent, F and steps; steps of 0 too,
// which keep a limiter below line rate so that its event counts grow), each
// from a random time anywhere in 2^64 ps: every bit of the configuration,
// the rates and the times moves (the toggle coverage of scripts/rtl_coverage).
TEST(RateLimiterCosim, RandomConfigurationsAgreeWithTheModel) {
  if (cosim_mode() != CosimMode::kCrossCheck) GTEST_SKIP() << "compares both sides";
  for (int i = 0; i < 24; ++i) {
    std::mt19937_64 rng(0xDC20 + i), stalls(0x57D0 + i);
    const bool fw = i % 2 == 1;
    DcqcnParameters p = fw ? firmware() : paper();
    p.line_rate_bps = 1'000'000 + random_width(rng, 50) % 1'000'000'000'000'000;
    p.g = 1 + static_cast<std::uint32_t>(rng() % kAlphaOne);
    p.initial_alpha = static_cast<std::uint32_t>(rng() % (kAlphaOne + 1));
    p.cut_shift = fw ? 10 + static_cast<std::uint32_t>(rng() % 16) : 21;
    p.min_decrease_percent = fw ? 1 + static_cast<std::uint32_t>(rng() % 100) : 0;
    p.min_rate_bps = 1 + random_width(rng, 40) % std::min(p.line_rate_bps, kOnes40);
    p.first_cnp_rate_bps = fw && rng() % 2 ? random_width(rng, 40) : 0;
    p.clamp_target = rng() % 2 == 0;
    p.alpha_period_ps = 100'000 + random_width(rng, 30);
    p.reduce_monitor_ps = random_width(rng, 40);
    p.timer_ps = 100'000 + random_width(rng, 40);
    p.byte_counter_bytes = 64 + random_width(rng, 40) % (kMostByteCounterBytes - 63);
    p.threshold = 1 + static_cast<std::uint32_t>(random_width(rng, 20));
    p.additive_increase_bps = rng() % 4 == 0 ? 0 : random_width(rng, 40);
    p.hyper_increase_bps = rng() % 4 == 0 ? 0 : random_width(rng, 40);
    Scoreboard board(p, rtl_block<Vrate_limiter>(p, stalls, 0.1));
    random_run(board, 1000, rng, rng(), p.alpha_period_ps);
    EXPECT_TRUE(board.mismatches.empty()) << "configuration " << i << ": " << board.report();
  }
}

// Every configuration port at the most it carries: all ones, but g and the
// initial alpha at 2^20, the percent at 100, the cut shift at 31 and B at
// 2^40 (2^40 - 1 under the firmware's preset, for B's low bits): beyond what
// the keys allow, which the ports need not hold back.
TEST(RateLimiterCosim, EveryPortAtItsMostAgreesWithTheModel) {
  if (cosim_mode() != CosimMode::kCrossCheck) GTEST_SKIP() << "compares both sides";
  for (const bool fw : {false, true}) {
    std::mt19937_64 rng(0xDC30 + fw), stalls(0x57E0 + fw);
    DcqcnParameters p = fw ? firmware() : paper();
    p.line_rate_bps = (std::uint64_t{1} << 50) - 1;
    p.g = kAlphaOne;
    p.initial_alpha = kAlphaOne;
    p.cut_shift = 31;
    p.min_decrease_percent = fw ? 100 : 0;
    p.min_rate_bps = kOnes40;
    p.first_cnp_rate_bps = fw ? kOnes40 : 0;
    p.alpha_period_ps = kOnes40;
    p.reduce_monitor_ps = kOnes40;
    p.timer_ps = kOnes40;
    p.byte_counter_bytes = kMostByteCounterBytes - (fw ? 1 : 0);
    p.threshold = (1 << 21) - 1;
    p.additive_increase_bps = kOnes40;
    p.hyper_increase_bps = kOnes40;
    Scoreboard board(p, rtl_block<Vrate_limiter>(p, stalls, 0.1));
    random_run(board, 1000, rng, rng(), p.alpha_period_ps);
    EXPECT_TRUE(board.mismatches.empty()) << "firmware " << fw << ": " << board.report();
    EXPECT_GT(board.coverage.cuts, 0u);
  }
}

// A state far from any start, the same in both twins through their
// backdoors, then random operations from it: event counts near 2^32, about
// to wrap (increase steps of 0 keep a limiter below line rate however many
// events come, so four billion of them reach this), a byte count near B =
// 2^40, rates near a line of 2^50 - 1. Some sets pair those counts with the
// largest hyper step, which the operations alone never do (the rate would
// reach line rate first): the RTL must agree with the model in every state
// the block can hold (the bridge refuses an active slot with a rate of 0 or
// a byte count at B or more, which no operation leaves), and there its
// products are widest. One takes a cut's shift of 0, as the port allows and
// no key gives. With `bytes_wrap_next`, the byte-counter event count is
// 2^32 - 1, so that the next such event wraps it (with B at 2^40 a slot
// gets one).
RateLimiterSlot far_state(const DcqcnParameters& p, std::mt19937_64& rng, std::uint64_t now,
                          bool bytes_wrap_next) {
  RateLimiterSlot s;
  ReactionPointState& r = s.reaction_point;
  r.active = true;
  const std::uint64_t floor = std::max<std::uint64_t>(p.min_rate_bps, 1);
  // Near line rate, or anywhere below it (of any length, so that some
  // targets are small beside a hyper step near 2^72).
  r.target_bps = rng() % 2 == 0 ? p.line_rate_bps - 2 - rng() % 1000
                                : floor + 2 + random_width(rng, 50) % (p.line_rate_bps - floor - 4);
  r.rate_bps = r.target_bps - rng() % (r.target_bps - floor);
  r.alpha = static_cast<std::uint32_t>(rng() % (kAlphaOne + 1));
  r.timer_events = 0xFFFF'FFFF - static_cast<std::uint32_t>(rng() % 8);
  r.byte_events = 0xFFFF'FFFF - (bytes_wrap_next ? 0 : static_cast<std::uint32_t>(rng() % 8));
  r.bytes = p.byte_counter_bytes - 1 - rng() % 1000;
  r.next_timer_ps = now + rng() % p.timer_ps;
  r.next_alpha_ps = now + rng() % p.alpha_period_ps;
  r.cut_before = true;
  r.increased_since_cut = rng() % 2 == 0;
  r.last_cut_ps = now - rng() % (2 * p.reduce_monitor_ps + 1);
  r.cnp_this_period = rng() % 2 == 0;
  r.alpha_running = r.alpha != 0 || rng() % 2 == 0;
  s.next_send_ps = now + rng() % (1000 * kUs);
  return s;
}

TEST(RateLimiterCosim, BackdoorLoadedFarStatesAgreeWithTheModel) {
  if (cosim_mode() != CosimMode::kCrossCheck) GTEST_SKIP() << "compares both sides";
  for (int i = 0; i < 4; ++i) {
    std::mt19937_64 rng(0xDC40 + i), stalls(0x57F0 + i);
    const bool fw = i % 2 == 1;
    DcqcnParameters p = fw ? firmware() : paper();
    p.line_rate_bps = (std::uint64_t{1} << 50) - 1;
    p.byte_counter_bytes = std::uint64_t{1} << 40;
    p.threshold = i < 2 ? 1 << 20 : 1;
    p.additive_increase_bps = i < 2 ? 0 : kMostStepBps;
    p.hyper_increase_bps = i < 2 ? 0 : (std::uint64_t{1} << 40) - 1;
    p.timer_ps = 30 * kUs;
    // A cut's decrease unshifted: RC x alpha whole.
    if (i == 3) p.cut_shift = 0;
    Scoreboard board(p, rtl_block<Vrate_limiter>(p, stalls, 0.1));
    const std::uint64_t start = rng();
    for (std::uint32_t slot = 0; slot < kSlots; ++slot) {
      board.load(slot, far_state(p, rng, start, slot % 2 == 1));
    }
    // Large packets a timer period apart: the first passes B (one
    // byte-counter event), and the timer events wrap their count.
    for (std::uint32_t slot = 0; slot < kSlots; ++slot) {
      for (int k = 0; k < 12; ++k) board.sent(slot, kMaxPacedBytes, start + k * p.timer_ps);
    }
    random_operations(board, 1000, rng, start + 12 * p.timer_ps, p.timer_ps);
    EXPECT_TRUE(board.mismatches.empty()) << "set " << i << ": " << board.report();
    EXPECT_GT(board.coverage.wrapped_timer_counts, 0u) << "set " << i;
    EXPECT_GT(board.coverage.wrapped_byte_counts, 0u) << "set " << i;
  }
}

// Hand-worked: the paper's first CNP and five timer events (the values
// dcqcn_test.cpp pins for the model), and the pacing that follows, through
// the RTL.
TEST(RateLimiterCosim, DirectedPaperSequenceThroughTheRtl) {
  if (!runs_rtl(cosim_mode())) GTEST_SKIP() << "needs the RTL";
  DcqcnParameters p = paper();
  p.timer_ps = 55 * kUs;
  p.alpha_period_ps = 55 * kUs;
  RtlRateLimiter<Vrate_limiter, 4> rtl(p);
  rtl.open(3, 0);
  const RateLimiterState cut = rtl.cnp(3, 10 * kUs);
  EXPECT_TRUE(cut.cut);
  EXPECT_EQ(cut.rate_bps, 50 * kGbps);
  EXPECT_EQ(cut.target_bps, 100 * kGbps);
  EXPECT_EQ(cut.alpha, kAlphaOne);
  const std::uint64_t expected[] = {75'000'000'000, 87'500'000'000, 93'750'000'000, 96'875'000'000,
                                    98'437'500'000};
  for (std::uint64_t k = 1; k <= 5; ++k) {
    const RateLimiterState s = rtl.look(3, 10 * kUs + k * 55 * kUs);
    EXPECT_EQ(s.rate_bps, expected[k - 1]) << "timer event " << k;
    EXPECT_EQ(s.timer_events, k);
  }
  // 1000 bytes at 98.4375 Gbit/s: 81,269.84 ns, rounded up.
  const std::uint64_t now = 10 * kUs + 5 * 55 * kUs;
  EXPECT_EQ(rtl.sent(3, 1000, now).next_send_ps, now + 81'270);
}

// The operation latencies rtl/rate_limiter/README.md gives ("Operation
// latency"), cycle for cycle: an operation taken in cycle 0 answers in cycle
// N, with a the alpha periods, t the timer events and b the byte-counter
// events it runs.
TEST(RateLimiterCosim, OperationLatenciesAreTheReadmesTable) {
  if (!runs_rtl(cosim_mode())) GTEST_SKIP() << "needs the RTL";
  DcqcnParameters p = firmware();  // a cut keeps at least 50%: it divides
  p.byte_counter_bytes = 1000;
  RtlRateLimiter<Vrate_limiter, 4> rtl(p);
  rtl.open(0, 0);
  EXPECT_EQ(rtl.last_operation_cycles(), 2u) << "open";
  rtl.look(0, 0);
  EXPECT_EQ(rtl.last_operation_cycles(), 2u) << "look, nothing due";
  rtl.sent(0, 1500, 0);
  EXPECT_EQ(rtl.last_operation_cycles(), 2u) << "sent, not active";
  rtl.cnp(0, 0);  // cuts; the alpha timer (1 us) and the rate timer (30 us) start
  EXPECT_EQ(rtl.last_operation_cycles(), 18u) << "cnp dividing for the minimum decrease";
  rtl.cnp(0, 500'000);
  EXPECT_EQ(rtl.last_operation_cycles(), 2u) << "cnp ignored within the monitor period";
  rtl.look(0, 3 * kUs);  // alpha periods end at 1, 2 and 3 us
  EXPECT_EQ(rtl.last_operation_cycles(), 3u + 2) << "look, a = 3";
  rtl.sent(0, 2500, 3 * kUs);  // two byte-counter events, still limited
  EXPECT_EQ(rtl.last_operation_cycles(), 2u + 19) << "sent, b = 2, paced";
  rtl.look(0, 30 * kUs);  // alpha periods at 4..30 us, the rate timer at 30 us
  EXPECT_EQ(rtl.last_operation_cycles(), 27u + 1 + 2) << "look, a = 27, t = 1";
  // A QP the first CNP sets just below line rate: one byte-counter event
  // lets it go.
  DcqcnParameters q = firmware();
  q.first_cnp_rate_bps = q.line_rate_bps - 2;
  RtlRateLimiter<Vrate_limiter, 4> near_line(q);
  near_line.open(1, 0);
  near_line.cnp(1, 0);
  EXPECT_EQ(near_line.last_operation_cycles(), 2u) << "cnp setting the first-CNP rate";
  near_line.sent(1, kMaxPacedBytes, 500'000);
  EXPECT_EQ(near_line.last_operation_cycles(), 1u + 3) << "sent, b = 1, let go";
}

// Firmware: a QP let go within the monitor period of its last cut ignores
// the next CNP there (the first-CNP rate waits for the period's end).
TEST(RateLimiterCosim, DirectedFirmwareLetGoInsideTheMonitorPeriod) {
  if (cosim_mode() != CosimMode::kCrossCheck) GTEST_SKIP() << "compares both sides";
  DcqcnParameters p = firmware();
  p.first_cnp_rate_bps = p.line_rate_bps - 2;
  std::mt19937_64 stalls(0x57C0);
  Scoreboard board(p, rtl_block<Vrate_limiter>(p, stalls, 0.5));
  board.open(0, 0);
  EXPECT_TRUE(board.cnp(0, 0).cut);  // RC = RT = line - 2
  // Two byte-counter events' worth: the first (additive, F = 1) takes RC to
  // line - 1, and the limiter lets go before the second.
  const RateLimiterState let_go = board.sent(0, kMaxPacedBytes, 1 * kUs);
  EXPECT_FALSE(let_go.active);
  EXPECT_EQ(let_go.byte_events, 1u);
  EXPECT_FALSE(board.cnp(0, 2 * kUs).cut);  // within 4 us of the cut
  const RateLimiterState again = board.cnp(0, 4 * kUs);
  EXPECT_TRUE(again.cut);
  EXPECT_EQ(again.rate_bps, p.line_rate_bps - 2);
  EXPECT_TRUE(board.mismatches.empty()) << board.report();
}

// The test-only fault (fast recovery rounds up) must show.
TEST(RateLimiterCosimFault, TheScoreboardCatchesFastRecoveryRoundingUp) {
  if (cosim_mode() != CosimMode::kCrossCheck) GTEST_SKIP() << "needs both sides";
  std::mt19937_64 rng(0xFA18), stalls(0x57A9);
  const DcqcnParameters p = paper();
  Scoreboard board(p, rtl_block<Vrate_limiter_fault>(p, stalls, 0));
  random_run(board, 2000, rng, 0, 2 * kUs);
  EXPECT_GT(board.mismatches.size(), 50u) << board.report();
}

}  // namespace
}  // namespace rnicsim::cosim
