// The seed figure and its variants, simulated from configs/seed_pipeline.json
// with overrides. Expected values are worked out by hand beside each test;
// the model holds no formula for them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "experiments/experiments.hpp"
#include "experiments/pipeline/pipeline_config.hpp"
#include "experiments/pipeline/pipeline_experiment.hpp"

namespace rnicsim {
namespace {

const std::string kSeedConfig = std::string(RNICSIM_SOURCE_DIR) + "/configs/seed_pipeline.json";

PipelineResult run_seed(const std::vector<std::string>& overrides = {}) {
  const config::Json doc = config::load(kSeedConfig, overrides, rnicsim_schema());
  return run_pipeline(pipeline_config(doc));
}

const PathResult& path(const PipelineResult& result, const std::string& name) {
  for (const PathResult& p : result.paths) {
    if (p.name == name) return p;
  }
  throw std::out_of_range("no path " + name);
}

std::vector<std::string> stage_names(const PathResult& p) {
  std::vector<std::string> names;
  for (const StageSummary& s : p.stages) names.push_back(s.name);
  return names;
}

// Data i is produced at i * interval and arrives at i * step + first.
void expect_arrivals(const PathResult& p, double first_ns, double step_ns, double interval_ns) {
  ASSERT_EQ(p.data.size(), 64u);
  for (std::size_t i = 0; i < p.data.size(); ++i) {
    EXPECT_EQ(p.data[i].index, i);
    EXPECT_DOUBLE_EQ(p.data[i].produced_ns, interval_ns * i) << p.name << " Data " << i;
    EXPECT_DOUBLE_EQ(p.data[i].arrival_ns, first_ns + step_ns * i) << p.name << " Data " << i;
    EXPECT_DOUBLE_EQ(p.data[i].latency_ns, p.data[i].arrival_ns - p.data[i].produced_ns);
  }
  EXPECT_EQ(p.data_mismatches, 0u);
}

TEST(SeedPipeline, EthernetTakesFourNanosecondsAndRdmaThreeBothAt100Gbps) {
  // Every stage moves 100 bits at 100 Gbit/s (1 ns) and the application makes
  // a Data every 1 ns: Ethernet crosses four stages (4 ns), RDMA three (3 ns),
  // no Data ever waits, and one Data arrives per ns: 100 Gbit/s.
  const PipelineResult result = run_seed();
  const PathResult& ethernet = path(result, "ethernet");
  const PathResult& rdma = path(result, "rdma");
  EXPECT_EQ(stage_names(ethernet),
            (std::vector<std::string>{"app_write", "kernel_copy", "dma", "wire"}));
  EXPECT_EQ(stage_names(rdma), (std::vector<std::string>{"app_write", "dma", "wire"}));
  EXPECT_DOUBLE_EQ(ethernet.first_latency_ns, 4);
  EXPECT_DOUBLE_EQ(rdma.first_latency_ns, 3);
  expect_arrivals(ethernet, 4, 1, 1);
  expect_arrivals(rdma, 3, 1, 1);
  EXPECT_DOUBLE_EQ(ethernet.steady_gbps, 100);
  EXPECT_DOUBLE_EQ(rdma.steady_gbps, 100);
  // All stages tie with the producer; the tie goes to the wire.
  EXPECT_EQ(ethernet.bottleneck, "wire");
  EXPECT_EQ(rdma.bottleneck, "wire");
  // Data 2 on the Ethernet path: app 2-3, kernel copy 3-4, DMA 4-5, wire 5-6.
  EXPECT_EQ(ethernet.data[2].stage_start_ns, (std::vector<double>{2, 3, 4, 5}));
  EXPECT_EQ(ethernet.data[2].stage_end_ns, (std::vector<double>{3, 4, 5, 6}));
}

TEST(SeedPipeline, TwoNanosecondStagesWith200BitDataEveryTwoNanoseconds) {
  // Variant (a): 200 bits at 100 Gbit/s = 2 ns per stage, a Data every 2 ns.
  // Ethernet 4 x 2 = 8 ns, RDMA 3 x 2 = 6 ns; one 200-bit Data per 2 ns = 100 Gbit/s.
  const PipelineResult result =
      run_seed({"workload.data_bits=200", "workload.interval_ns=2"});
  const PathResult& ethernet = path(result, "ethernet");
  const PathResult& rdma = path(result, "rdma");
  EXPECT_DOUBLE_EQ(ethernet.first_latency_ns, 8);
  EXPECT_DOUBLE_EQ(rdma.first_latency_ns, 6);
  expect_arrivals(ethernet, 8, 2, 2);
  expect_arrivals(rdma, 6, 2, 2);
  EXPECT_DOUBLE_EQ(ethernet.steady_gbps, 100);
  EXPECT_DOUBLE_EQ(rdma.steady_gbps, 100);
}

TEST(SeedPipeline, ASlowerWireIsTheBottleneckAndLatencyGrowsWithTheIndex) {
  // Variant (b): the wire at 50 Gbit/s needs 2 ns per Data while a new one
  // comes every 1 ns. On the RDMA path Data 0 reaches the wire at 2 ns and
  // arrives at 4; the wire is then never idle, so Data i arrives at 4 + 2i and
  // its latency is 4 + 2i - i = 4 + i. Ethernet reaches the wire 1 ns later:
  // 5 + 2i, latency 5 + i. Bandwidth: 100 bits per 2 ns = 50 Gbit/s.
  const PipelineResult result = run_seed({"link.gbps=50"});
  const PathResult& ethernet = path(result, "ethernet");
  const PathResult& rdma = path(result, "rdma");
  expect_arrivals(ethernet, 5, 2, 1);
  expect_arrivals(rdma, 4, 2, 1);
  for (std::size_t i = 0; i < 64; ++i) {
    EXPECT_DOUBLE_EQ(ethernet.data[i].latency_ns, 5.0 + i);
    EXPECT_DOUBLE_EQ(rdma.data[i].latency_ns, 4.0 + i);
  }
  EXPECT_DOUBLE_EQ(ethernet.steady_gbps, 50);
  EXPECT_DOUBLE_EQ(rdma.steady_gbps, 50);
  EXPECT_EQ(ethernet.bottleneck, "wire");
  EXPECT_EQ(rdma.bottleneck, "wire");
}

TEST(SeedPipeline, BackpressureFromAOneItemQueueDoesNotChangeWhatTheWireDelivers) {
  // Same as (b) with room for one item in front of each stage: the stages
  // before the wire now wait for it, but with no stage latency to cover the
  // wire is still never idle, so the arrivals are those of (b) and the wait
  // shows up as blocked time.
  const PipelineResult result = run_seed({"link.gbps=50", "pipeline.queue_items=1"});
  const PathResult& ethernet = path(result, "ethernet");
  const PathResult& rdma = path(result, "rdma");
  expect_arrivals(ethernet, 5, 2, 1);
  expect_arrivals(rdma, 4, 2, 1);
  EXPECT_GT(rdma.stages[1].stats.blocked, sc_core::SC_ZERO_TIME);
  EXPECT_GT(ethernet.stages[2].stats.blocked, sc_core::SC_ZERO_TIME);
  EXPECT_EQ(ethernet.bottleneck, "wire");
  EXPECT_EQ(rdma.bottleneck, "wire");
}

TEST(SeedPipeline, AQueueTooSmallForAStagesLatencyLimitsBandwidthAtThatStage) {
  // One item of room after a DMA stage with 10 ns latency: the queue holds the
  // item for its whole flight, so the DMA stage can hand on one item per
  // 10 ns. RDMA: Data 0 is read 1-2 ns, visible at 12, on the wire 12-13;
  // each later Data leaves the DMA stage 10 ns after the one before. The DMA
  // stage is held 10 ns per item (1 busy + 9 blocked), as is every stage
  // before it; it is the last of them, so it is the bottleneck.
  const PipelineResult result = run_seed({"dma.latency_ns=10", "pipeline.queue_items=1"});
  const PathResult& ethernet = path(result, "ethernet");
  const PathResult& rdma = path(result, "rdma");
  for (std::size_t i = 0; i < rdma.data.size(); ++i) {
    EXPECT_DOUBLE_EQ(rdma.data[i].arrival_ns, 13 + 10.0 * i) << i;
    EXPECT_DOUBLE_EQ(ethernet.data[i].arrival_ns, 14 + 10.0 * i) << i;
  }
  EXPECT_DOUBLE_EQ(rdma.steady_gbps, 10);
  EXPECT_DOUBLE_EQ(ethernet.steady_gbps, 10);
  EXPECT_EQ(rdma.bottleneck, "dma");
  EXPECT_EQ(ethernet.bottleneck, "dma");
}

TEST(SeedPipeline, PropagationAndDmaLatencyAddToLatencyButNotToBandwidth) {
  // Variant (c): 5 ns of cable and a fixed 10 ns DMA latency are pipelined:
  // every Data takes 15 ns longer (Ethernet 19, RDMA 18) and one still arrives
  // every ns: 100 Gbit/s.
  const PipelineResult result = run_seed({"link.propagation_ns=5", "dma.latency_ns=10"});
  const PathResult& ethernet = path(result, "ethernet");
  const PathResult& rdma = path(result, "rdma");
  expect_arrivals(ethernet, 19, 1, 1);
  expect_arrivals(rdma, 18, 1, 1);
  EXPECT_DOUBLE_EQ(ethernet.steady_gbps, 100);
  EXPECT_DOUBLE_EQ(rdma.steady_gbps, 100);
}

TEST(SeedPipeline, AProducerSlowerThanEveryStageIsTheBottleneck) {
  // A Data every 4 ns through 1 ns stages: nothing waits, 100 bits per 4 ns.
  const PipelineResult result = run_seed({"workload.interval_ns=4"});
  const PathResult& rdma = path(result, "rdma");
  expect_arrivals(rdma, 3, 4, 4);
  EXPECT_DOUBLE_EQ(rdma.steady_gbps, 25);
  EXPECT_EQ(rdma.bottleneck, "workload");
}

TEST(SeedPipeline, EthernetFramingPutsHeadersOnTheWire) {
  // A 13-byte Data on the wire: RoCEv2 WRITE ONLY is 114 B with preamble and
  // IFG (9.12 ns at 100G), TCP/IPv4 91 B (7.28 ns). Both wires become the
  // bottleneck; Ethernet arrives first at 3 + 7.28 ns, RDMA at 2 + 9.12 ns.
  const PipelineResult result = run_seed({"link.framing=ethernet"});
  const PathResult& ethernet = path(result, "ethernet");
  const PathResult& rdma = path(result, "rdma");
  EXPECT_DOUBLE_EQ(ethernet.first_latency_ns, 10.28);
  EXPECT_DOUBLE_EQ(rdma.first_latency_ns, 11.12);
  EXPECT_NEAR(ethernet.steady_gbps, 100.0 / 7.28, 1e-9);
  EXPECT_NEAR(rdma.steady_gbps, 100.0 / 9.12, 1e-9);
  EXPECT_EQ(ethernet.bottleneck, "wire");
  EXPECT_EQ(rdma.bottleneck, "wire");
}

}  // namespace
}  // namespace rnicsim
