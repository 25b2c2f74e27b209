// Stage on its own, in each shape (1 -> 1, 1 -> N, drops, N inputs round
// robin, fan-out): service time, pipelined latency, work cost, backpressure
// and statistics, checked against times worked out by hand.
#include <gtest/gtest.h>

#include <string>
#include <systemc>
#include <utility>
#include <vector>

#include "block/stream_harness.hpp"
#include "common/activity.hpp"
#include "common/stage.hpp"
#include "common/time_units.hpp"

namespace rnicsim {
namespace {

using testbench::PacedSource;
using testbench::RecordingSink;
using testbench::TestItem;

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

// 1 -> N: a request for `count` items of `bits` each, as a builder turns a
// message into frames; the outputs occupy the datapath.
struct Request {
  int id = 0;
  int count = 0;
  std::uint64_t bits = 0;
};

class Splitter : public Stage<Request, TestItem> {
 public:
  Splitter(const sc_core::sc_module_name& name, const StageTiming& timing)
      : Stage<Request, TestItem>(name, timing, Occupancy::kOutputs) {}

 protected:
  void serve(Request& request, Emitter& emitter) override {
    for (int k = 0; k < request.count; ++k) emitter.emit(TestItem{request.id * 10 + k, request.bits, {}});
  }
};

TEST(Stage, OneRequestBecomesSeveralItemsEachChargedOnTheDatapath) {
  // 100 Gbit/s, 5 ns latency. Request 0: three 100-bit items served 0-1, 1-2,
  // 2-3 ns, visible at 6, 7, 8. Request 1: two 200-bit items served 3-5, 5-7,
  // visible at 10, 12.
  std::vector<std::pair<sc_core::sc_time, Request>> requests;
  requests.emplace_back(sc_core::SC_ZERO_TIME, Request{0, 3, 100});
  requests.emplace_back(sc_core::SC_ZERO_TIME, Request{1, 2, 200});
  Channel<Request> in("in", Channel<Request>::kUnbounded);
  Channel<TestItem> out("out", Channel<TestItem>::kUnbounded);
  PacedSource<Request> source("source", std::move(requests));
  Splitter stage("splitter", StageTiming::rate(nanoseconds(5), 100));
  RecordingSink<TestItem> sink("sink");
  source.out(in);
  stage.in(in);
  stage.out(out);
  sink.in(out);
  sc_core::sc_start();

  const auto& got = sink.received();
  ASSERT_EQ(got.size(), 5u);
  const std::vector<int> ids{0, 1, 2, 10, 11};
  const std::vector<std::uint64_t> starts{0, 1000, 2000, 3000, 5000};
  const std::vector<std::uint64_t> visible{6000, 7000, 8000, 10000, 12000};
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(got[i].second.id, ids[i]);
    EXPECT_EQ(ps(got[i].first), visible[i]);
    ASSERT_EQ(got[i].second.spans.size(), 1u);
    EXPECT_STREQ(got[i].second.spans[0].stage, "splitter");
    EXPECT_EQ(ps(got[i].second.spans[0].start), starts[i]);
    EXPECT_EQ(ps(got[i].second.spans[0].end), visible[i]);
  }
  const StageStats& stats = stage.stats();
  EXPECT_EQ(stats.items, 2u);
  EXPECT_EQ(stats.items_out, 5u);
  EXPECT_EQ(stats.dropped, 0u);
  EXPECT_EQ(stats.bits, 700u);
  EXPECT_EQ(ps(stats.busy), 7000u);
  EXPECT_EQ(ps(stats.last_end), 12000u);
  EXPECT_EQ(activity().stage_resumptions, 5u);  // one service wait per item emitted
}

// Drops odd ids, as a parser drops bad frames: no output, still served.
class OddDropper : public Stage<TestItem, TestItem> {
 public:
  using Stage<TestItem, TestItem>::Stage;

 protected:
  void serve(TestItem& item, Emitter& emitter) override {
    if (item.id % 2 == 0) emitter.emit(std::move(item));
  }
};

TEST(Stage, ADroppedItemIsServedAndCountedButNotEmitted) {
  // 100-bit items at 100 Gbit/s, 5 ns latency: items 0-3 occupy 0-1, 1-2,
  // 2-3, 3-4 ns; 0 and 2 are visible at 6 and 8 ns, 1 and 3 dropped.
  Channel<TestItem> in("in", Channel<TestItem>::kUnbounded);
  Channel<TestItem> out("out", Channel<TestItem>::kUnbounded);
  PacedSource<TestItem> source("source", items_at_zero(4, 100));
  OddDropper stage("dropper", StageTiming::rate(nanoseconds(5), 100));
  RecordingSink<TestItem> sink("sink");
  source.out(in);
  stage.in(in);
  stage.out(out);
  sink.in(out);
  sc_core::sc_start();

  const auto& got = sink.received();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].second.id, 0);
  EXPECT_EQ(ps(got[0].first), 6000u);
  EXPECT_EQ(got[1].second.id, 2);
  EXPECT_EQ(ps(got[1].first), 8000u);
  EXPECT_EQ(ps(got[1].second.spans[0].start), 2000u);
  const StageStats& stats = stage.stats();
  EXPECT_EQ(stats.items, 4u);
  EXPECT_EQ(stats.items_out, 2u);
  EXPECT_EQ(stats.dropped, 2u);
  EXPECT_EQ(stats.bits, 400u);
  EXPECT_EQ(ps(stats.busy), 4000u);
  EXPECT_EQ(ps(stats.last_end), 8000u);
  EXPECT_EQ(activity().stage_resumptions, 4u);
}

// Passes every item on, on the port its id selects (id mod the outputs).
class Forwarder : public Stage<TestItem, TestItem> {
 public:
  using Stage<TestItem, TestItem>::Stage;
  std::vector<std::size_t> inputs_seen;

 protected:
  void serve(TestItem& item, Emitter& emitter) override {
    inputs_seen.push_back(current_input());
    const auto port = static_cast<std::size_t>(item.id) % static_cast<std::size_t>(out.size());
    emitter.emit(std::move(item), port);
  }
};

std::vector<std::pair<sc_core::sc_time, TestItem>> items_at(
    std::vector<std::pair<double, int>> at_ns_and_id) {
  std::vector<std::pair<sc_core::sc_time, TestItem>> items;
  for (const auto& [at, id] : at_ns_and_id) items.emplace_back(nanoseconds(at), TestItem{id, 100, {}});
  return items;
}

TEST(Stage, SeveralInputsAreServedRoundRobinAmongThoseWithAVisibleItem) {
  // 1 ns per item, no latency. Input 0 holds 0, 1, 2 and input 1 holds 10,
  // 11 from 0 ns; 20 reaches input 2 at 2.5 ns, 12 reaches input 1 at 10 ns.
  // Each pick starts after the input last served: 0, 10, then (input 2 still
  // empty at 2 ns) 1, 11, 20, 2; the stage then waits for 12.
  Channel<TestItem> in0("in0", Channel<TestItem>::kUnbounded);
  Channel<TestItem> in1("in1", Channel<TestItem>::kUnbounded);
  Channel<TestItem> in2("in2", Channel<TestItem>::kUnbounded);
  Channel<TestItem> out("out", Channel<TestItem>::kUnbounded);
  PacedSource<TestItem> source0("source0", items_at({{0, 0}, {0, 1}, {0, 2}}));
  PacedSource<TestItem> source1("source1", items_at({{0, 10}, {0, 11}, {10, 12}}));
  PacedSource<TestItem> source2("source2", items_at({{2.5, 20}}));
  Forwarder stage("scheduler", StageTiming::rate(sc_core::SC_ZERO_TIME, 100));
  RecordingSink<TestItem> sink("sink");
  source0.out(in0);
  source1.out(in1);
  source2.out(in2);
  stage.in(in0);
  stage.in(in1);
  stage.in(in2);
  stage.out(out);
  sink.in(out);
  sc_core::sc_start();

  const auto& got = sink.received();
  std::vector<std::pair<int, std::uint64_t>> order;
  for (const auto& [at, item] : got) order.emplace_back(item.id, ps(at));
  const std::vector<std::pair<int, std::uint64_t>> expected{
      {0, 1000}, {10, 2000}, {1, 3000}, {11, 4000}, {20, 5000}, {2, 6000}, {12, 11000}};
  EXPECT_EQ(order, expected);
  EXPECT_EQ(stage.inputs_seen, (std::vector<std::size_t>{0, 1, 0, 1, 2, 0, 1}));
  EXPECT_EQ(stage.stats().items, 7u);
  EXPECT_EQ(ps(stage.stats().busy), 7000u);
}

TEST(Stage, AnItemGoesToTheOutputServeChooses) {
  // 1 ns per item, 5 ns latency; even ids to output 0, odd to output 1, which
  // holds one item and whose sink takes item 1 no earlier than 20 ns: item 3,
  // done at 4 ns, waits for room until then.
  Channel<TestItem> in("in", Channel<TestItem>::kUnbounded);
  Channel<TestItem> even("even", Channel<TestItem>::kUnbounded);
  Channel<TestItem> odd("odd", 1);
  PacedSource<TestItem> source("source", items_at_zero(4, 100));
  Forwarder stage("fanout", StageTiming::rate(nanoseconds(5), 100));
  RecordingSink<TestItem> even_sink("even_sink");
  RecordingSink<TestItem> odd_sink("odd_sink", {nanoseconds(20)});
  source.out(in);
  stage.in(in);
  stage.out(even);
  stage.out(odd);
  even_sink.in(even);
  odd_sink.in(odd);
  sc_core::sc_start();

  const auto& evens = even_sink.received();
  const auto& odds = odd_sink.received();
  ASSERT_EQ(evens.size(), 2u);
  ASSERT_EQ(odds.size(), 2u);
  EXPECT_EQ(evens[0].second.id, 0);
  EXPECT_EQ(ps(evens[0].first), 6000u);
  EXPECT_EQ(evens[1].second.id, 2);
  EXPECT_EQ(ps(evens[1].first), 8000u);
  EXPECT_EQ(odds[0].second.id, 1);
  EXPECT_EQ(ps(odds[0].first), 20000u);
  EXPECT_EQ(odds[1].second.id, 3);
  EXPECT_EQ(ps(odds[1].first), 25000u);  // pushed at 20 ns, when item 1 left
  EXPECT_EQ(ps(stage.stats().blocked), 16000u);
  EXPECT_EQ(stage.stats().items_out, 4u);
}

// A PopIf with no non-blocking side, like the pipeline's DataSource.
class BlockingOnlySource : public sc_core::sc_prim_channel, public PopIf<TestItem> {
 public:
  explicit BlockingOnlySource(const char* name) : sc_core::sc_prim_channel(name) {}
  TestItem pop() override {
    sc_core::wait(never_);
    return TestItem{};
  }

 private:
  sc_core::sc_event never_;
};

TEST(Stage, SeveralInputsMustHaveANonBlockingSide) {
  Channel<TestItem> in0("in0", 4);
  BlockingOnlySource in1("in1");
  Channel<TestItem> out("out", 4);
  Forwarder stage("scheduler", StageTiming::rate(sc_core::SC_ZERO_TIME, 100));
  stage.in(in0);
  stage.in(in1);
  stage.out(out);
  try {
    sc_core::sc_start();
    ADD_FAILURE() << "elaboration accepted an input without a non-blocking side";
  } catch (const sc_core::sc_report& report) {
    EXPECT_NE(std::string(report.get_msg()).find("scheduler: input 1 has no non-blocking side"),
              std::string::npos)
        << report.get_msg();
  }
}

}  // namespace
}  // namespace rnicsim
