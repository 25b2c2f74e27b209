// PipelineStage on its own: service time, pipelined latency, work cost and
// backpressure, checked against times worked out by hand.
#include <gtest/gtest.h>

#include <systemc>
#include <utility>
#include <vector>

#include "block/stream_harness.hpp"
#include "common/stage.hpp"
#include "common/time_units.hpp"

namespace rnicsim {
namespace {

using testbench::PacedSource;
using testbench::RecordingSink;

struct TestItem {
  int id = 0;
  std::uint64_t bits = 0;
  std::vector<StageSpan> spans;
  std::uint64_t size_bits() const { return bits; }
  void record_span(const char* stage, const sc_core::sc_time& start, const sc_core::sc_time& end) {
    spans.push_back(StageSpan{stage, start, end});
  }
};

class TestStage : public PipelineStage<TestItem> {
 public:
  TestStage(const sc_core::sc_module_name& name, const StageTiming& timing,
            sc_core::sc_time work_cost = sc_core::SC_ZERO_TIME)
      : PipelineStage<TestItem>(name, timing), work_cost_(work_cost) {}

 protected:
  sc_core::sc_time serve(TestItem& /*item*/) override { return work_cost_; }

 private:
  sc_core::sc_time work_cost_;
};

std::vector<std::pair<sc_core::sc_time, TestItem>> items_at_zero(int n, std::uint64_t bits) {
  std::vector<std::pair<sc_core::sc_time, TestItem>> items;
  for (int i = 0; i < n; ++i) items.emplace_back(sc_core::SC_ZERO_TIME, TestItem{i, bits, {}});
  return items;
}

std::uint64_t ps(const sc_core::sc_time& t) { return to_ps(t); }

// A testbed: source -> in -> stage -> out -> sink.
struct StageBench {
  StageBench(std::vector<std::pair<sc_core::sc_time, TestItem>> items, const StageTiming& timing,
             std::size_t out_capacity, std::vector<sc_core::sc_time> sink_takes = {},
             sc_core::sc_time work_cost = sc_core::SC_ZERO_TIME)
      : in("in", Channel<TestItem>::kUnbounded),
        out("out", out_capacity),
        source("source", std::move(items)),
        stage("stage", timing, work_cost),
        sink("sink", std::move(sink_takes)) {
    source.out(in);
    stage.in(in);
    stage.out(out);
    sink.in(out);
  }
  Channel<TestItem> in;
  Channel<TestItem> out;
  PacedSource<TestItem> source;
  TestStage stage;
  RecordingSink<TestItem> sink;
};

TEST(PipelineStage, LatencyIsPipelinedAndServiceTimeSetsTheInterval) {
  // 100 bits at 100 Gbit/s = 1 ns service, 5 ns latency: three items offered
  // at 0 start at 0, 1, 2 ns and become visible at 6, 7, 8 ns.
  StageBench bench(items_at_zero(3, 100), StageTiming::rate(nanoseconds(5), 100), 16);
  sc_core::sc_start();
  const auto& got = bench.sink.received();
  ASSERT_EQ(got.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(got[i].second.id, i);
    EXPECT_EQ(ps(got[i].first), 6000u + 1000u * i);
    ASSERT_EQ(got[i].second.spans.size(), 1u);
    EXPECT_STREQ(got[i].second.spans[0].stage, "stage");
    EXPECT_EQ(ps(got[i].second.spans[0].start), 1000u * i);
    EXPECT_EQ(ps(got[i].second.spans[0].end), 6000u + 1000u * i);
  }
  const StageStats& stats = bench.stage.stats();
  EXPECT_EQ(stats.items, 3u);
  EXPECT_EQ(stats.bits, 300u);
  EXPECT_EQ(ps(stats.busy), 3000u);
  EXPECT_EQ(ps(stats.blocked), 0u);
  EXPECT_EQ(ps(stats.last_end), 8000u);
}

TEST(PipelineStage, AnIdleStageStartsAnItemWhenItIsOffered) {
  std::vector<std::pair<sc_core::sc_time, TestItem>> items;
  items.emplace_back(nanoseconds(0), TestItem{0, 200, {}});
  items.emplace_back(nanoseconds(10), TestItem{1, 200, {}});
  StageBench bench(std::move(items), StageTiming::rate(sc_core::SC_ZERO_TIME, 100), 16);
  sc_core::sc_start();
  const auto& got = bench.sink.received();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(ps(got[0].first), 2000u);   // 200 bits at 100 Gbit/s
  EXPECT_EQ(ps(got[1].first), 12000u);  // offered at 10 ns
}

TEST(PipelineStage, TheCostOfTheWorkAddsToTheServiceTime) {
  StageBench bench(items_at_zero(2, 100), StageTiming::rate(sc_core::SC_ZERO_TIME, 100), 16, {},
                   nanoseconds(2));
  sc_core::sc_start();
  const auto& got = bench.sink.received();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(ps(got[0].first), 3000u);
  EXPECT_EQ(ps(got[1].first), 6000u);
  EXPECT_EQ(ps(bench.stage.stats().busy), 6000u);
}

TEST(PipelineStage, AFullOutputStallsTheStageAndCountsTheBlockedTime) {
  // Output holds one item; the sink takes items no earlier than 10, 20, 30 ns.
  // Item 0: served 0-1, pushed at 1, visible 6, taken at 10.
  // Item 1: served 1-2, waits for room until 10, pushed at 10, visible 15, taken at 20.
  // Item 2: served 10-11, waits until 20, pushed at 20, visible 25, taken at 30.
  StageBench bench(items_at_zero(3, 100), StageTiming::rate(nanoseconds(5), 100), 1,
                   {nanoseconds(10), nanoseconds(20), nanoseconds(30)});
  sc_core::sc_start();
  const auto& got = bench.sink.received();
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(ps(got[0].first), 10000u);
  EXPECT_EQ(ps(got[1].first), 20000u);
  EXPECT_EQ(ps(got[2].first), 30000u);
  EXPECT_EQ(ps(got[1].second.spans[0].start), 1000u);
  EXPECT_EQ(ps(got[1].second.spans[0].end), 15000u);
  EXPECT_EQ(ps(got[2].second.spans[0].start), 10000u);
  EXPECT_EQ(ps(got[2].second.spans[0].end), 25000u);
  EXPECT_EQ(ps(bench.stage.stats().blocked), 17000u);  // 8 + 9 ns
}

TEST(PipelineStage, AClockedStageChargesWholeCycles) {
  // 250 MHz, 64 B per cycle, 3 cycles latency: a 100 B item takes 2 cycles
  // (8 ns) and is visible 12 ns later.
  const ClockDomain clock(250);
  StageBench bench(items_at_zero(2, 100 * 8), StageTiming::clocked(clock, 3, 64, 1), 16);
  sc_core::sc_start();
  const auto& got = bench.sink.received();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(ps(got[0].first), 20000u);
  EXPECT_EQ(ps(got[1].first), 28000u);
}

}  // namespace
}  // namespace rnicsim
