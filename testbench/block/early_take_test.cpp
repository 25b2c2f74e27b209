// Early takes (channel.hpp, stage.hpp): a pipeline of method stages that
// serve items at their push must give exactly what the same pipeline gives
// stage by stage. Two copies of one pipeline run side by side on the same
// seeded stimulus, one allowed to take early and one not; everything the
// sink sees (times, order, spans) and every stage's statistics must match,
// through idle stretches (where items are taken early) and congestion
// (where full channels make the stages fall back to waking up).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <systemc>
#include <utility>
#include <vector>

#include "block/stream_harness.hpp"
#include "block/transfer_bench.hpp"
#include "common/stage.hpp"
#include "common/time_units.hpp"
#include "wire/wire_link.hpp"

namespace rnicsim {
namespace {

using testbench::make_transfer;
using testbench::PacedSource;
using testbench::RecordingSink;
using Item = testbench::TestItem;

// 1 -> 1, charging a work cost that depends on the item.
class Worker : public PipelineStage<Item> {
 public:
  Worker(const sc_core::sc_module_name& name, const StageTiming& timing)
      : PipelineStage<Item>(name, timing, StageProcess::kMethod) {}

  std::vector<std::uint64_t> starts;  // service_start() of each item, as serve saw it

 protected:
  sc_core::sc_time serve(Item& item) override {
    starts.push_back(to_ps(service_start()));
    return picoseconds(static_cast<std::uint64_t>(item.id % 4) * 300);
  }
};

// 1 -> 0..3: drops every fifth item, repeats others up to three times.
class Fanout : public Stage<Item, Item> {
 public:
  Fanout(const sc_core::sc_module_name& name, const StageTiming& timing)
      : Stage<Item, Item>(name, timing, Occupancy::kOutputs, StageProcess::kMethod) {}

 protected:
  static std::size_t copies(const Item& item) { return item.id % 5 == 0 ? 0 : item.id % 3 + 1; }
  std::size_t max_outputs(const Item& item) const override { return copies(item); }
  void serve(Item& item, Emitter& emitter) override {
    for (std::size_t k = 0; k < copies(item); ++k) {
      Item copy = item;
      copy.id = item.id * 10 + static_cast<int>(k);
      emitter.emit(std::move(copy));
    }
  }
};

// source -> c0 -> first -> c1 -> fanout -> c2 -> last -> c3 -> sink
struct Pipeline {
  Pipeline(const std::string& tag, std::vector<std::pair<sc_core::sc_time, Item>> items,
           std::vector<sc_core::sc_time> takes, bool early)
      : c0((tag + "_c0").c_str(), 2),
        c1((tag + "_c1").c_str(), 2),
        c2((tag + "_c2").c_str(), 3),
        c3((tag + "_c3").c_str(), 2),
        source((tag + "_source").c_str(), std::move(items)),
        first((tag + "_first").c_str(), StageTiming::rate(nanoseconds(3), 100)),
        fanout((tag + "_fanout").c_str(), StageTiming::rate(nanoseconds(2), 200)),
        last((tag + "_last").c_str(), StageTiming::rate(nanoseconds(1), 200)),
        sink((tag + "_sink").c_str(), std::move(takes)) {
    first.allow_early_takes(early);
    fanout.allow_early_takes(early);
    last.allow_early_takes(early);
    source.out(c0);
    first.in(c0);
    first.out(c1);
    fanout.in(c1);
    fanout.out(c2);
    last.in(c2);
    last.out(c3);
    sink.in(c3);
  }
  Channel<Item> c0, c1, c2, c3;
  PacedSource<Item> source;
  Worker first;
  Fanout fanout;
  Worker last;
  RecordingSink<Item> sink;
};

// Bursts and pauses, so the pipeline both idles and backs up; the sink takes
// slowly for a while, so backpressure reaches the source.
void stimulus(std::vector<std::pair<sc_core::sc_time, Item>>& items,
              std::vector<sc_core::sc_time>& takes) {
  std::mt19937_64 random(20261201);
  std::uint64_t at_ps = 0;
  for (int i = 0; i < 400; ++i) {
    // Bursts of 10 items 0 to 0.4 ns apart, then 30 items 0 to 60 ns apart;
    // an item takes the first stage 0.6 to 10 ns.
    at_ps += i % 40 < 10 ? random() % 400 : random() % 60000;
    items.emplace_back(picoseconds(at_ps), Item{i, 64 + random() % 940, {}});
  }
  // The sink takes each item as soon as it is there, except for a stretch of
  // 60 from when item 190 is offered (about output 300), which it takes 60 ns
  // apart: a third of the rate they come at, so the pipeline backs up to the
  // source, and then drains.
  const std::uint64_t slow_from = to_ps(items[190].first);
  for (int i = 0; i < 1200; ++i) {
    const bool slow = i >= 300 && i < 360;
    takes.push_back(slow ? picoseconds(slow_from + std::uint64_t(i - 300) * 60000)
                         : sc_core::SC_ZERO_TIME);
  }
}

void expect_same_stats(const StageStats& a, const StageStats& b, const char* stage) {
  SCOPED_TRACE(stage);
  EXPECT_EQ(a.items, b.items);
  EXPECT_EQ(a.items_out, b.items_out);
  EXPECT_EQ(a.dropped, b.dropped);
  EXPECT_EQ(a.bits, b.bits);
  EXPECT_EQ(a.busy, b.busy);
  EXPECT_EQ(a.blocked, b.blocked);
  EXPECT_EQ(a.first_start, b.first_start);
  EXPECT_EQ(a.last_end, b.last_end);
}

TEST(EarlyTake, APipelineTakingItemsEarlyMatchesItStageByStage) {
  std::vector<std::pair<sc_core::sc_time, Item>> items;
  std::vector<sc_core::sc_time> takes;
  stimulus(items, takes);
  Pipeline early("early", items, takes, true);
  Pipeline woken("woken", items, takes, false);
  sc_core::sc_start();

  const auto& got = early.sink.received();
  const auto& want = woken.sink.received();
  ASSERT_EQ(got.size(), want.size());
  ASSERT_GT(want.size(), 600u);  // about 400 * 1.6 copies
  for (std::size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE("item " + std::to_string(i));
    EXPECT_EQ(got[i].first, want[i].first);
    EXPECT_EQ(got[i].second.id, want[i].second.id);
    ASSERT_EQ(got[i].second.spans.size(), want[i].second.spans.size());
    for (std::size_t s = 0; s < want[i].second.spans.size(); ++s) {
      EXPECT_EQ(got[i].second.spans[s].start, want[i].second.spans[s].start);
      EXPECT_EQ(got[i].second.spans[s].end, want[i].second.spans[s].end);
    }
  }
  expect_same_stats(early.first.stats(), woken.first.stats(), "first");
  expect_same_stats(early.fanout.stats(), woken.fanout.stats(), "fanout");
  expect_same_stats(early.last.stats(), woken.last.stats(), "last");
  EXPECT_EQ(early.first.starts, woken.first.starts);
  EXPECT_EQ(early.last.starts, woken.last.starts);
  EXPECT_EQ(early.c0.peak_occupancy(), woken.c0.peak_occupancy());
  EXPECT_EQ(early.c1.peak_occupancy(), woken.c1.peak_occupancy());
  EXPECT_EQ(early.c2.peak_occupancy(), woken.c2.peak_occupancy());

  // Both ways were exercised: many items taken early, and the congested
  // stretches made some wait in the channels.
  EXPECT_EQ(woken.c0.taken_early() + woken.c1.taken_early() + woken.c2.taken_early(), 0u);
  EXPECT_GT(early.c0.taken_early(), 100u);
  EXPECT_GT(early.c1.taken_early(), 100u);
  EXPECT_GT(early.c2.taken_early(), 100u);
  EXPECT_LT(early.c2.taken_early(), early.fanout.stats().items_out);
  EXPECT_GT(early.last.stats().blocked, sc_core::SC_ZERO_TIME);
}


// The receive side: source -> wire -> its receive buffer -> a slow reader ->
// sink. The buffer drops frames that arrive while it is full, so the test
// checks that frames taken early hold their bytes as long as they would have.
class SlowReader : public PipelineStage<Transfer> {
 public:
  explicit SlowReader(const sc_core::sc_module_name& name)
      : PipelineStage<Transfer>(name, StageTiming::rate(nanoseconds(4), 25), StageProcess::kMethod) {}

 protected:
  sc_core::sc_time serve(Transfer& /*frame*/) override { return sc_core::SC_ZERO_TIME; }
};

struct ReceiveSide {
  ReceiveSide(const std::string& tag, std::vector<std::pair<sc_core::sc_time, Transfer>> frames,
              std::vector<sc_core::sc_time> takes, bool early)
      : in((tag + "_in").c_str(), 4),
        out((tag + "_out").c_str(), 64),
        source((tag + "_source").c_str(), std::move(frames)),
        wire((tag + "_wire").c_str(), WireLinkConfig{100, nanoseconds(50), 6000},
             WireFraming(WireFraming::Kind::kNone, roce_v2_write_only_ipv4())),
        reader((tag + "_reader").c_str()),
        sink((tag + "_sink").c_str(), std::move(takes)) {
    wire.allow_early_takes(early);
    reader.allow_early_takes(early);
    wire.set_drop_handler([this](const Transfer& frame, const sc_core::sc_time& arrived) {
      drops.emplace_back(frame.index(), to_ps(arrived));
    });
    source.out(in);
    wire.in(in);
    reader.in(wire.rx);
    reader.out(out);
    sink.in(out);
  }
  Channel<Transfer> in, out;
  PacedSource<Transfer> source;
  WireLink wire;
  SlowReader reader;
  RecordingSink<Transfer> sink;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> drops;  // (frame, arrival ps)
};

TEST(EarlyTake, AReceiveBufferHoldsFramesTakenEarlyUntilTheyWouldHaveBeenPopped) {
  // Frames of 100 to 1600 B: bursts of 8 back to back, then 8 up to 2 us apart.
  // The reader runs at 25 Gbit/s, a quarter of the wire, and the sink stalls
  // for a while, so the 6000 B buffer fills and drops during bursts.
  std::mt19937_64 random(7);
  std::vector<std::pair<sc_core::sc_time, Transfer>> frames;
  std::uint64_t at_ps = 0;
  for (std::uint64_t i = 0; i < 300; ++i) {
    at_ps += i % 16 < 8 ? 0 : random() % 2000000;
    frames.emplace_back(picoseconds(at_ps), make_transfer(i, (100 + random() % 1500) * 8));
  }
  std::vector<sc_core::sc_time> takes(300, sc_core::SC_ZERO_TIME);
  for (std::size_t i = 100; i < 120; ++i) takes[i] = picoseconds(to_ps(frames[150].first) + (i - 100) * 500000);
  ReceiveSide early("rx_early", frames, takes, true);
  ReceiveSide woken("rx_woken", frames, takes, false);
  sc_core::sc_start();

  EXPECT_EQ(early.drops, woken.drops);
  const auto& got = early.sink.received();
  const auto& want = woken.sink.received();
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE("frame " + std::to_string(i));
    EXPECT_EQ(got[i].first, want[i].first);
    EXPECT_EQ(got[i].second.index(), want[i].second.index());
  }
  const ReceiveBufferStats& a = early.wire.rx.stats();
  const ReceiveBufferStats& b = woken.wire.rx.stats();
  EXPECT_EQ(a.frames, b.frames);
  EXPECT_EQ(a.dropped, b.dropped);
  EXPECT_EQ(a.dropped_bytes, b.dropped_bytes);
  EXPECT_EQ(a.peak_bytes, b.peak_bytes);
  expect_same_stats(early.wire.stats(), woken.wire.stats(), "wire");
  expect_same_stats(early.reader.stats(), woken.reader.stats(), "reader");
  // Drops happened, frames were taken early, and some were not (the buffer held some).
  EXPECT_GT(b.dropped, 5u);
  EXPECT_EQ(b.taken_early, 0u);
  EXPECT_GT(a.taken_early, 50u);
  EXPECT_LT(a.taken_early, a.frames);
  EXPECT_GT(early.in.taken_early(), 50u);
}

}  // namespace
}  // namespace rnicsim
