#pragma once
// Drives a verilated frame-stream block (rtl/icrc, rtl/packet_parser): frames
// in on its s_frame_* stream as beats of kDataBytes, one answer per frame out
// on its answer port, one cycle per loop turn (inputs set, settle at clock
// low, handshakes read, rising edge), with random stalls on both sides.
// While the source is idle the stream carries random bits, so that a block
// reading it then shows up as a mismatch.
//
// `Port` names the answer port: a type with `Answer`, and static
// `valid(top)`, `set_ready(top, bool)` and `read(top)`.
//
// RNICSIM_COSIM_VCD=<folder> writes a VCD per test into that folder
// (cosim/test_vcd.hpp).
#include <gtest/gtest.h>
#include <verilated.h>
#include <verilated_vcd_c.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/clock_domain.hpp"
#include "common/stage_timing.hpp"
#include "cosim/frame_stimulus.hpp"
#include "cosim/mode.hpp"
#include "cosim/stalls.hpp"
#include "cosim/test_vcd.hpp"
#include "nic/rtl_bridge/verilated_ports.hpp"

namespace rnicsim::cosim {

// What the RTL gave for one frame, and when (cycles counted from reset).
template <typename Answer>
struct StreamOutcome {
  Answer answer{};
  std::uint64_t first_beat_cycle = 0;
  std::uint64_t last_beat_cycle = 0;
  std::uint64_t answer_cycle = 0;
};

template <typename Top, std::size_t kDataBytes, typename Port>
class FrameStreamDriver {
 public:
  using Answer = typename Port::Answer;
  using Outcome = StreamOutcome<Answer>;

  FrameStreamDriver(std::uint64_t seed, Stalls stalls)
      : rng_(seed), stalls_(stalls), vcd_(open_test_vcd(top_)) {}
  ~FrameStreamDriver() {
    if (vcd_) vcd_->close();
    top_.final();
  }
  FrameStreamDriver(const FrameStreamDriver&) = delete;
  FrameStreamDriver& operator=(const FrameStreamDriver&) = delete;

  std::vector<Outcome> run(const std::vector<Frame>& frames) {
    using rtl_bridge::set_bytes;
    using rtl_bridge::set_low_ones;
    using rtl_bridge::set_random;
    std::vector<Outcome> outcomes(frames.size());
    reset();
    std::size_t frame = 0;   // the frame whose beats go in
    std::size_t offset = 0;  // its next byte
    std::size_t answers = 0;
    // Enough for every beat and answer at the worst stall rates used here.
    std::uint64_t budget = 1000;
    for (const Frame& f : frames) budget += 20 * (f.bytes.size() / kDataBytes + 2);
    while (answers < frames.size()) {
      if (cycle_ > budget) {
        ADD_FAILURE() << "the RTL stopped: " << answers << " of " << frames.size()
                      << " answers after " << cycle_ << " cycles";
        break;
      }
      const bool offer = frame < frames.size() && !chance(rng_, stalls_.source_idle);
      std::size_t lanes = 0;
      if (offer) {
        const Bytes& bytes = frames[frame].bytes;
        lanes = std::min(kDataBytes, bytes.size() - offset);
        set_bytes(top_.s_frame_tdata_i, bytes.data() + offset, lanes);
        set_low_ones(top_.s_frame_tkeep_i, lanes);
        top_.s_frame_tlast_i = offset + lanes == bytes.size();
        top_.s_frame_tvalid_i = 1;
      } else {
        set_random(top_.s_frame_tdata_i, rng_);
        set_random(top_.s_frame_tkeep_i, rng_);
        top_.s_frame_tlast_i = rng_() & 1;
        top_.s_frame_tvalid_i = 0;
      }
      const bool ready = !chance(rng_, stalls_.sink_busy);
      Port::set_ready(top_, ready);
      top_.clk_i = 0;
      top_.eval();
      dump();

      if (top_.s_frame_tvalid_i && top_.s_frame_tready_o) {
        if (offset == 0) outcomes[frame].first_beat_cycle = cycle_;
        offset += lanes;
        if (top_.s_frame_tlast_i) {
          outcomes[frame].last_beat_cycle = cycle_;
          ++frame;
          offset = 0;
        }
      }
      if (Port::valid(top_) && ready) {
        if (answers < frame) {
          outcomes[answers].answer = Port::read(top_);
          outcomes[answers].answer_cycle = cycle_;
        } else {
          ADD_FAILURE() << "an answer before its frame's last beat, at cycle " << cycle_;
        }
        ++answers;
      }
      tick();
    }
    return outcomes;
  }

 private:
  void reset() {
    top_.rst_ni = 0;
    top_.s_frame_tvalid_i = 0;
    Port::set_ready(top_, false);
    for (int i = 0; i < 2; ++i) {
      top_.clk_i = 0;
      top_.eval();
      dump();
      tick();
    }
    top_.rst_ni = 1;
  }

  void tick() {
    top_.clk_i = 1;
    top_.eval();
    ++time_;
    dump();
    ++time_;
    ++cycle_;
  }

  void dump() {
    if (vcd_) vcd_->dump(time_);
  }

  Top top_;
  std::mt19937_64 rng_;
  Stalls stalls_;
  std::unique_ptr<VerilatedVcdC> vcd_;
  std::uint64_t cycle_ = 0;
  std::uint64_t time_ = 0;  // VCD time: two steps per cycle
};

// One datapath width of a frame-stream twin, for typed tests: its driver and
// its width, and the test name suffix it gets.
template <typename Top, std::size_t kBytes, typename Port>
struct StreamWidth {
  using Driver = FrameStreamDriver<Top, kBytes, Port>;
  static constexpr std::size_t kDataBytes = kBytes;
};

class WidthNames {
 public:
  template <typename T>
  static std::string GetName(int) {
    return "bytes_per_cycle_" + std::to_string(T::kDataBytes);
  }
};

// The stall rates the cross-checks run under, both sides.
constexpr Stalls kBusy{0.3, 0.3};

// Runs the sides RNICSIM_COSIM_MODE asks for (Board::mode) and hands the
// RTL's outcomes, none when it did not run, to the test's scoreboard.
template <typename W, typename Board>
Board cross_check(const std::vector<Frame>& frames, std::uint64_t seed, Stalls stalls) {
  Board board;
  std::vector<typename W::Driver::Outcome> outcomes;
  if (runs_rtl(board.mode)) outcomes = typename W::Driver(seed, stalls).run(frames);
  board.compare(frames, outcomes);
  return board;
}

// Without stalls a frame takes ceil(bytes / width) cycles, frames follow
// each other with no idle cycle, and the answer is there the cycle after the
// last beat: the model's clocked-stage timing with latency_cycles = 0.
template <typename Answer>
void expect_one_beat_per_cycle(const std::vector<Frame>& frames,
                               const std::vector<StreamOutcome<Answer>>& outcomes,
                               std::size_t data_bytes) {
  const ClockDomain clock(1000);  // 1 ns per cycle
  const StageTiming model = StageTiming::clocked(clock, 0, data_bytes, 1);
  ASSERT_EQ(outcomes.size(), frames.size());
  for (std::size_t i = 0; i < frames.size(); ++i) {
    SCOPED_TRACE(frames[i].name);
    const std::uint64_t model_cycles = static_cast<std::uint64_t>(
        model.service_time(8 * frames[i].bytes.size()) / clock.cycles(1));
    EXPECT_EQ(outcomes[i].last_beat_cycle - outcomes[i].first_beat_cycle + 1, model_cycles);
    EXPECT_EQ(outcomes[i].answer_cycle, outcomes[i].last_beat_cycle + 1);
    if (i > 0) {
      EXPECT_EQ(outcomes[i].first_beat_cycle, outcomes[i - 1].last_beat_cycle + 1);
    }
  }
}

}  // namespace rnicsim::cosim
