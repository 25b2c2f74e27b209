// The RTL PFC MAC control unit (rtl/pfc_unit) against its model twin
// (wire/pfc_unit.hpp): the same calls into both (received frames, buffer
// levels, time passing), and after each a scoreboard compares everything
// the unit answers: the frame's kind and the priorities it paused and
// resumed, the PFC frames built (byte for byte, in order), the paused
// priorities, the time to the first resume and to the refresh, the
// congested set and each priority's paused time, to the picosecond.
//
// Stimulus: PFC frames naming random priorities with random quanta (0,
// 1, 65535 and between), other MAC Control opcodes, data frames, frames cut
// short; buffer levels around XOFF and XON for random priorities; time
// steps from 0 to past every timer, some landing exactly on a pause's end
// or a refresh. Widths 8 and 64, at 100 and 25 Gbit/s; the functional
// coverage points (every priority paused and resumed by a frame, every
// priority congested and relieved, refreshes, pauses replaced, a level
// during a frame being sent) are counted and each must be reached.
#include <gtest/gtest.h>
#include <verilated.h>

#include <array>
#include <cstdint>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "Vpfc_unit_w64.h"
#include "Vpfc_unit_w64___024root.h"
#include "Vpfc_unit_w8.h"
#include "Vpfc_unit_w8___024root.h"
#include "Vpfc_unit_w8_fault.h"
#include "Vpfc_unit_w8_fault___024root.h"
#include "cosim/mode.hpp"
#include "formats/mac_control.hpp"
#include "wire/pfc_unit.hpp"
#include "wire/pfc_unit_rtl.hpp"

namespace rnicsim::cosim {
namespace {

const packet::MacAddress kSource{0x02, 0x11, 0x22, 0x33, 0x44, 0x55};
const packet::MacAddress kPeer{0x02, 0x66, 0x77, 0x88, 0x99, 0xAA};

// What the suite reached, each of which it must reach.
struct Coverage {
  std::array<std::uint64_t, 8> paused_by_frame{};
  std::array<std::uint64_t, 8> resumed_by_frame{};
  std::array<std::uint64_t, 8> congested{};
  std::array<std::uint64_t, 8> relieved{};
  std::uint64_t refreshes = 0;        // pause frames sent by the refresh timer
  std::uint64_t pauses_replaced = 0;  // a pause arriving while one runs
  std::uint64_t pause_ran_out = 0;    // a pause that ended by its time
  std::uint64_t other_control = 0;    // MAC Control frames that are not PFC
  std::uint64_t zero_and_max_quanta = 0;
};

// Drives both units with the same calls and compares what they answer.
class Scoreboard {
 public:
  Scoreboard(std::unique_ptr<PfcUnit> model, std::unique_ptr<PfcUnit> rtl)
      : model_(std::move(model)), rtl_(std::move(rtl)) {}

  void receive(const std::vector<std::uint8_t>& frame, std::uint64_t now) {
    const std::uint8_t paused_before = model_->paused();
    const PfcReceived m = model_->receive(frame.data(), frame.size(), now);
    const PfcReceived r = rtl_->receive(frame.data(), frame.size(), now);
    ++calls_;
    if (m.control != r.control || m.pauses != r.pauses || m.resumes != r.resumes) {
      mismatch("receive at " + std::to_string(now) + ": model " + describe(m) + ", RTL " +
               describe(r));
    }
    for (unsigned p = 0; p < 8; ++p) {
      coverage.paused_by_frame[p] += (m.pauses >> p) & 1u;
      coverage.resumed_by_frame[p] += (m.resumes >> p) & 1u;
    }
    coverage.pauses_replaced += (m.pauses & paused_before) != 0;
    if (m.control && !m.pauses && !m.resumes) ++coverage.other_control;
    compare_state(now, "receive");
  }

  void level(std::uint8_t priorities, std::uint64_t bytes, std::uint64_t now) {
    const std::uint8_t before = model_->congested();
    model_->buffer_level(priorities, bytes, now);
    rtl_->buffer_level(priorities, bytes, now);
    ++calls_;
    const std::uint8_t after = model_->congested();
    for (unsigned p = 0; p < 8; ++p) {
      coverage.congested[p] += ((after & ~before) >> p) & 1u;
      coverage.relieved[p] += ((before & ~after) >> p) & 1u;
    }
    compare_state(now, "level");
  }

  void advance(std::uint64_t now) {
    const std::uint8_t before = model_->paused();
    model_->advance(now);
    rtl_->advance(now);
    ++calls_;
    coverage.pause_ran_out += (before & ~model_->paused()) != 0;
    compare_state(now, "advance");
  }

  // The same paused time into both through their backdoors.
  void load_paused_ps(unsigned priority, std::uint64_t ps, std::uint64_t now) {
    model_->load_paused_ps(priority, ps);
    rtl_->load_paused_ps(priority, ps);
    compare_state(now, "load");
  }

  std::uint64_t paused_ps(unsigned priority, std::uint64_t now) const {
    return model_->paused_ps(priority, now);
  }
  std::uint64_t resume_in() const { return model_->resume_in_ps(); }
  std::uint64_t refresh_in() const { return model_->refresh_in_ps(); }

  std::vector<std::string> mismatches;
  Coverage coverage;
  std::uint64_t frames_sent = 0;

  std::string report() const {
    std::ostringstream out;
    out << mismatches.size() << " mismatches in " << calls_ << " calls, " << frames_sent
        << " PFC frames";
    for (std::size_t i = 0; i < mismatches.size() && i < 10; ++i) out << "\n  " << mismatches[i];
    return out.str();
  }

 private:
  static std::string describe(const PfcReceived& r) {
    std::ostringstream out;
    out << (r.control ? "control" : "data") << " pauses 0x" << std::hex << int{r.pauses}
        << " resumes 0x" << int{r.resumes};
    return out.str();
  }

  void mismatch(const std::string& what) { mismatches.push_back(what); }

  void compare_state(std::uint64_t now, const char* call) {
    const auto m_frames = model_->take_frames();
    const auto r_frames = rtl_->take_frames();
    frames_sent += m_frames.size();
    const std::string at = std::string(call) + " at " + std::to_string(now) + ": ";
    if (m_frames != r_frames) {
      mismatch(at + "the model built " + std::to_string(m_frames.size()) + " PFC frames, the RTL " +
               std::to_string(r_frames.size()) +
               (m_frames.size() == r_frames.size() ? " with different bytes" : ""));
    }
    // A refresh frame names every congested priority; a change only those changing.
    for (const auto& f : m_frames) {
      const auto pause = packet::decode_pfc(f.data(), f.size());
      if (pause && refresh_pending_ && pause->enabled == model_->congested()) ++coverage.refreshes;
    }
    refresh_pending_ = model_->refresh_in_ps() != 0;
    if (model_->paused() != rtl_->paused()) mismatch(at + "paused differs");
    if (model_->resume_in_ps() != rtl_->resume_in_ps()) {
      mismatch(at + "resume in " + std::to_string(model_->resume_in_ps()) + " ps, RTL " +
               std::to_string(rtl_->resume_in_ps()));
    }
    if (model_->refresh_in_ps() != rtl_->refresh_in_ps()) {
      mismatch(at + "refresh in " + std::to_string(model_->refresh_in_ps()) + " ps, RTL " +
               std::to_string(rtl_->refresh_in_ps()));
    }
    if (model_->congested() != rtl_->congested()) mismatch(at + "congested differs");
    for (unsigned p = 0; p < 8; ++p) {
      if (model_->paused_ps(p, now) != rtl_->paused_ps(p, now)) {
        mismatch(at + "priority " + std::to_string(p) + " paused for " +
                 std::to_string(model_->paused_ps(p, now)) + " ps, RTL " +
                 std::to_string(rtl_->paused_ps(p, now)));
      }
    }
  }

  std::unique_ptr<PfcUnit> model_;
  std::unique_ptr<PfcUnit> rtl_;
  std::uint64_t calls_ = 0;
  bool refresh_pending_ = false;
};

std::vector<std::uint8_t> pfc_frame(std::uint8_t named,
                                    const std::array<std::uint16_t, 8>& quanta) {
  packet::PfcPause pause;
  pause.enabled = named;
  pause.quanta = quanta;
  return packet::encode_pfc(kPeer, pause);
}

// A random frame the MAC receives: mostly PFC, some other MAC Control,
// some data, some cut short.
std::vector<std::uint8_t> random_frame(std::mt19937_64& rng) {
  std::array<std::uint16_t, 8> quanta{};
  for (auto& q : quanta) {
    switch (rng() % 5) {
      case 0:
        q = 0;
        break;
      case 1:
        q = 1;
        break;
      case 2:
        q = 65535;
        break;
      default:
        q = static_cast<std::uint16_t>(1 + rng() % 3000);
        break;
    }
  }
  std::vector<std::uint8_t> frame = pfc_frame(static_cast<std::uint8_t>(rng()), quanta);
  switch (rng() % 10) {
    case 0:  // another MAC Control opcode (802.3x PAUSE)
      frame[15] = 0x01;
      frame[14] = 0x00;
      break;
    case 1:  // a data frame of random length
      frame.resize(14 + rng() % 1500);
      for (std::size_t i = 12; i < frame.size(); ++i) frame[i] = static_cast<std::uint8_t>(rng());
      if (frame[12] == 0x88 && frame[13] == 0x08) frame[12] = 0x08;
      break;
    case 2:  // cut short: a MAC Control frame, too short to be PFC
      frame.resize(14 + rng() % 20);
      break;
    case 3:  // the reserved upper byte of the vector set
      frame[16] = static_cast<std::uint8_t>(rng());
      break;
    default:
      break;
  }
  // Any addresses: the unit reads neither (as the model's decode does not).
  if (rng() % 4 == 0) {
    for (std::size_t i = 0; i < 12; ++i) frame[i] = static_cast<std::uint8_t>(rng());
  }
  return frame;
}

template <typename Top, std::size_t kBytes>
std::unique_ptr<PfcUnit> rtl_unit(const PfcConfig& config, double gbps) {
  // Every beat of every frame, as a MAC streams it.
  return std::make_unique<RtlPfcUnit<Top, kBytes>>(config, *whole_quantum_ps(gbps), kSource,
                                                   /*whole_frames=*/true);
}

PfcConfig test_config() {
  PfcConfig config;
  config.enabled = true;
  config.priorities = 0xFF;
  config.xoff_bytes = 20000;
  config.xon_bytes = 10000;
  config.pause_quanta = 2000;
  config.refresh_quanta = 1000;
  return config;
}

// `steps` random calls at random times, some landing on a timer's end.
void random_run(Scoreboard& board, std::uint64_t steps, std::mt19937_64& rng,
                const PfcConfig& config) {
  std::uint64_t now = 0;
  for (std::uint64_t i = 0; i < steps; ++i) {
    switch (rng() % 4) {
      case 0:
        if (board.resume_in() != 0) now += board.resume_in() - rng() % 2;
        break;
      case 1:
        if (board.refresh_in() != 0) now += board.refresh_in();
        break;
      default:
        now += rng() % 4 == 0 ? 0 : rng() % 12'000'000;
        break;
    }
    switch (rng() % 3) {
      case 0:
        board.receive(random_frame(rng), now);
        break;
      case 1: {
        // Around XOFF and XON, for one random priority or all.
        const std::uint64_t anchor = rng() % 2 ? config.xoff_bytes : config.xon_bytes;
        const std::uint64_t bytes = rng() % 8 == 0 ? rng() % 50000 : anchor + rng() % 3 - 1;
        const std::uint8_t priorities =
            rng() % 4 == 0 ? 0xFF : static_cast<std::uint8_t>(1u << (rng() % 8));
        board.level(priorities, bytes, now);
        break;
      }
      default:
        board.advance(now);
        break;
    }
  }
}

void expect_every_point_reached(const Coverage& c) {
  for (unsigned p = 0; p < 8; ++p) {
    EXPECT_GT(c.paused_by_frame[p], 0u) << "priority " << p;
    EXPECT_GT(c.resumed_by_frame[p], 0u) << "priority " << p;
    EXPECT_GT(c.congested[p], 0u) << "priority " << p;
    EXPECT_GT(c.relieved[p], 0u) << "priority " << p;
  }
  EXPECT_GT(c.refreshes, 0u);
  EXPECT_GT(c.pauses_replaced, 0u);
  EXPECT_GT(c.pause_ran_out, 0u);
  EXPECT_GT(c.other_control, 0u);
}

TEST(PfcUnitCosim, RandomCallsAgreeWithTheModelAtEightBytesPerCycle) {
  if (cosim_mode() != CosimMode::kCrossCheck) GTEST_SKIP() << "compares both sides";
  std::mt19937_64 rng(0xBFC1);
  const PfcConfig config = test_config();
  Scoreboard board(make_model_pfc_unit(config, 100, kSource),
                   rtl_unit<Vpfc_unit_w8, 8>(config, 100));
  random_run(board, 20000, rng, config);
  EXPECT_TRUE(board.mismatches.empty()) << board.report();
  EXPECT_GT(board.frames_sent, 5000u);
  expect_every_point_reached(board.coverage);
}

TEST(PfcUnitCosim, RandomCallsAgreeWithTheModelAtSixtyFourBytesPerCycleAnd25G) {
  if (cosim_mode() != CosimMode::kCrossCheck) GTEST_SKIP() << "compares both sides";
  std::mt19937_64 rng(0xBFC2);
  PfcConfig config = test_config();
  config.priorities = 0x28;  // 3 and 5 lossless: the others' pauses are not honoured
  Scoreboard board(make_model_pfc_unit(config, 25, kSource),
                   rtl_unit<Vpfc_unit_w64, 64>(config, 25));
  random_run(board, 10000, rng, config);
  EXPECT_TRUE(board.mismatches.empty()) << board.report();
  EXPECT_GT(board.coverage.paused_by_frame[3], 0u);
  EXPECT_EQ(board.coverage.paused_by_frame[4], 0u);
  EXPECT_EQ(board.coverage.congested[0], 0u);
}

// The widest values each port carries: the slowest quantum the RTL holds
// (16,384,000 ps, a 31.25 Mbit/s link, so that 65535 quanta last 1.07 s and
// a priority's paused time passes 2^49 ps), thresholds, levels and time
// steps across all 48 bits, all-ones source addresses; and quanta whose
// ones, taken together, set every bit of the quantum's port (125 x 2^k ps:
// the rates 512,000 / quantum Gbit/s that a double holds exactly). Every bit
// of the timers, the configuration and the counters that a run can reach
// moves (the toggle coverage of scripts/rtl_coverage).
TEST(PfcUnitCosim, TheWidestValuesAgreeWithTheModel) {
  if (cosim_mode() != CosimMode::kCrossCheck) GTEST_SKIP() << "compares both sides";
  struct Extreme {
    std::uint64_t quantum_ps;
    std::uint64_t xoff;
    std::uint64_t xon;
    std::uint16_t refresh_quanta;
  };
  // The first congests at levels past 2^47; the others never do (no level
  // passes an all-ones XOFF) but set the other configuration bits.
  const Extreme congests{125 << 17, 0x8000'0000'0000, 0x7FFF'FFFF'FFFF, 65534};
  std::vector<Extreme> extremes{congests};
  for (const int shift : {0, 1, 5, 10, 15}) {
    // 125 ps x 65535 quanta sets bits 1 and 8 of the refresh period, which
    // no other product here does.
    extremes.push_back({std::uint64_t{125} << shift, 0xFFFF'FFFF'FFFF, 0x8000'0000'0001,
                        static_cast<std::uint16_t>(shift == 0 ? 65535 : 65533 - 7 * shift)});
  }
  const packet::MacAddress all_ones{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
  for (const Extreme& extreme : extremes) {
    const double gbps = static_cast<double>(packet::kBitTimesPerQuantum) * 1000.0 /
                        static_cast<double>(extreme.quantum_ps);
    ASSERT_EQ(whole_quantum_ps(gbps), extreme.quantum_ps);
    PfcConfig config;
    config.enabled = true;
    config.priorities = 0xFF;
    config.xoff_bytes = extreme.xoff;
    config.xon_bytes = extreme.xon;
    config.pause_quanta = 65535;
    config.refresh_quanta = extreme.refresh_quanta;
    for (const bool wide : {false, true}) {
      Scoreboard board(
          make_model_pfc_unit(config, gbps, all_ones),
          wide ? std::unique_ptr<PfcUnit>(std::make_unique<RtlPfcUnit<Vpfc_unit_w64, 64>>(
                     config, extreme.quantum_ps, all_ones, true))
               : std::unique_ptr<PfcUnit>(std::make_unique<RtlPfcUnit<Vpfc_unit_w8, 8>>(
                     config, extreme.quantum_ps, all_ones, true)));
      std::mt19937_64 rng(extreme.quantum_ps + wide);
      std::uint64_t now = 0;
      std::array<std::uint16_t, 8> longest;
      longest.fill(65535);
      for (int i = 0; i < 600; ++i) {
        // Every priority paused for 65535 quanta, then most of it passes.
        board.receive(pfc_frame(0xFF, longest), now);
        now += 65535 * extreme.quantum_ps - rng() % 1'000'000;
        board.level(static_cast<std::uint8_t>(rng()), rng() & 0xFFFF'FFFF'FFFF, now);
        if (i % 3 == 0) {
          now += rng() & 0xFFFF'FFFF'FFFF;  // up to 2^48 ps at once
          board.advance(now);
        }
      }
      EXPECT_TRUE(board.mismatches.empty()) << board.report();
      if (extreme.xoff == congests.xoff) {
        EXPECT_GT(board.coverage.refreshes, 0u);
      }
    }
  }
}

// The paused-time statistics' high bits: each priority's counter set through
// the backdoor to within a pause of 2^64 ps (213 days of pause, which no run
// reaches), then pauses that carry it past 2^64, where it wraps as the
// model's uint64 does.
TEST(PfcUnitCosim, PausedTimeCountersWrapAsTheModels) {
  if (cosim_mode() != CosimMode::kCrossCheck) GTEST_SKIP() << "compares both sides";
  const PfcConfig config = test_config();
  const std::uint64_t longest_pause = pause_ps(65535, 100);
  std::array<std::uint16_t, 8> longest;
  longest.fill(65535);
  for (const bool wide : {false, true}) {
    std::mt19937_64 rng(0x9A05 + wide);
    Scoreboard board(
        make_model_pfc_unit(config, 100, kSource),
        wide ? rtl_unit<Vpfc_unit_w64, 64>(config, 100) : rtl_unit<Vpfc_unit_w8, 8>(config, 100));
    std::uint64_t now = 1000;
    board.receive(pfc_frame(0xFF, longest), now);  // a pause running while the counters are set
    now += longest_pause / 4;
    board.advance(now);
    for (unsigned p = 0; p < 8; ++p) {
      board.load_paused_ps(p, 0 - longest_pause / 2 - rng() % 1'000'000, now);
    }
    for (int i = 0; i < 8; ++i) {
      now += longest_pause / 3;
      board.advance(now);
      if (i % 2 == 1) board.receive(pfc_frame(0xFF, longest), now);
    }
    EXPECT_TRUE(board.mismatches.empty()) << board.report();
    // The run did carry every count past 2^64 (the model's count; the RTL's
    // was compared with it after every call).
    for (unsigned p = 0; p < 8; ++p) {
      EXPECT_LT(board.paused_ps(p, now), longest_pause * 3) << "priority " << p << " wrapped";
    }
  }
}

// Corners: pauses of 0 and 65535 quanta, a refresh while this port is
// paused, XON while the pause frame is still being sent, a refresh falling
// due at the same instant as a level, and PFC off.
TEST(PfcUnitCosim, DirectedCornersAgreeWithTheModel) {
  if (cosim_mode() != CosimMode::kCrossCheck) GTEST_SKIP() << "compares both sides";
  const PfcConfig config = test_config();
  Scoreboard board(make_model_pfc_unit(config, 100, kSource),
                   rtl_unit<Vpfc_unit_w8, 8>(config, 100));
  std::array<std::uint16_t, 8> quanta{};
  quanta[2] = 65535;  // 335.5392 us
  board.receive(pfc_frame(0x04, quanta), 1000);
  EXPECT_EQ(board.resume_in(), 335'539'200u);
  // Congested while paused; the refresh (1000 quanta, 5.12 us) falls due at
  // the same instant as the next level, which relieves it.
  board.level(0x04, 20001, 2000);
  EXPECT_EQ(board.refresh_in(), 5'120'000u);
  board.advance(2000 + 5'120'000);                 // the refresh
  board.level(0x04, 10000, 2000 + 2 * 5'120'000);  // XON at the refresh instant
  // A pause and its resume at the same instant.
  board.level(0x08, 30000, 20'000'000);
  board.level(0x08, 0, 20'000'000);
  quanta[2] = 0;
  board.receive(pfc_frame(0x04, quanta), 21'000'000);  // 0 quanta: resumed at once
  board.advance(400'000'000);
  EXPECT_TRUE(board.mismatches.empty()) << board.report();
  // Pause, refresh, resume (the refresh due with it finds nothing
  // congested); pause, resume.
  EXPECT_EQ(board.frames_sent, 5u);
}

// The test-only fault (a resume of 0 quanta is ignored) must show.
TEST(PfcUnitCosimFault, TheScoreboardCatchesAnIgnoredResume) {
  if (cosim_mode() != CosimMode::kCrossCheck) GTEST_SKIP() << "needs both sides";
  std::mt19937_64 rng(0xFA17);
  const PfcConfig config = test_config();
  Scoreboard board(make_model_pfc_unit(config, 100, kSource),
                   rtl_unit<Vpfc_unit_w8_fault, 8>(config, 100));
  random_run(board, 2000, rng, config);
  EXPECT_GT(board.mismatches.size(), 50u) << board.report();
}

}  // namespace
}  // namespace rnicsim::cosim
