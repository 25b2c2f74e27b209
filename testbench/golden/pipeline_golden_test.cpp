// The seed figure and its variants, simulated from configs/seed_pipeline.json
// (the stage blocks alone) and configs/seed_nic.json (the same workload
// through the composed testbed: host memory, the NIC's DMA engine over an
// ideal PCIe link, the testbed's wire), with overrides. The variants both
// compositions share are parameterized tests: the two must give the same
// numbers. Expected values are worked out by hand beside each test; the
// model holds no formula for them.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "program/experiments/experiments.hpp"
#include "program/experiments/pipeline/pipeline_config.hpp"
#include "common/run_progress.hpp"
#include "program/experiments/pipeline/pipeline_experiment.hpp"

namespace rnicsim {
namespace {

const std::string kConfigs = std::string(RNICSIM_SOURCE_DIR) + "/configs/";

// One way to build the seed figure: its config, and the key giving the DMA
// step a fixed latency (the stage's own, or the root complex's on the testbed).
struct Composition {
  const char* name;
  const char* config;
  const char* dma_latency_key;
};
const Composition kStages{"Stages", "seed_pipeline.json", "dma.latency_ns"};
const Composition kTestbed{"Testbed", "seed_nic.json", "pcie.root_complex_latency_ns"};

// Keeps every Data's timeline, which the model itself does not.
class TimelineRecorder : public PipelineObserver {
 public:
  void begin(const std::vector<PathLayout>& paths) override { data.resize(paths.size()); }
  void arrived(std::size_t path, const DataTimeline& t) override { data[path].push_back(t); }
  std::vector<std::vector<DataTimeline>> data;  // per path, in arrival order
};

struct SeedRun {
  PipelineResult result;
  TimelineRecorder timelines;
};

SeedRun run_seed(const Composition& composition, const std::vector<std::string>& overrides = {}) {
  config::RunConfig doc(
      config::load_config(kConfigs + composition.config, overrides, rnicsim_schema()));
  SeedRun run;
  RunProgress quiet;
  run.result = run_pipeline(pipeline_config(doc), quiet, &run.timelines);
  return run;
}

// A path's result with the timelines of its Data.
struct Path {
  const PathResult& result;
  const std::vector<DataTimeline>& data;
  const PathResult* operator->() const { return &result; }
};

Path path(const SeedRun& run, const std::string& name) {
  for (std::size_t i = 0; i < run.result.paths.size(); ++i) {
    if (run.result.paths[i].name == name) return Path{run.result.paths[i], run.timelines.data[i]};
  }
  throw std::out_of_range("no path " + name);
}

std::vector<std::string> stage_names(const Path& p) {
  std::vector<std::string> names;
  for (const StageSummary& s : p->stages) names.push_back(s.name);
  return names;
}

// Data i is produced at i * interval and arrives at i * step + first, so its
// latency is first + (step - interval) * i; the summary's figures follow.
void expect_arrivals(const Path& p, double first_ns, double step_ns, double interval_ns) {
  ASSERT_EQ(p.data.size(), 64u);
  for (std::size_t i = 0; i < p.data.size(); ++i) {
    EXPECT_EQ(p.data[i].index, i);
    EXPECT_DOUBLE_EQ(p.data[i].produced_ns, interval_ns * i) << p->name << " Data " << i;
    EXPECT_DOUBLE_EQ(p.data[i].arrival_ns, first_ns + step_ns * i) << p->name << " Data " << i;
    EXPECT_DOUBLE_EQ(p.data[i].latency_ns, first_ns + (step_ns - interval_ns) * i)
        << p->name << " Data " << i;
    EXPECT_TRUE(p.data[i].bytes_match) << p->name << " Data " << i;
  }
  const ArrivalTotals& totals = p->arrivals;
  EXPECT_EQ(totals.arrived, 64u);
  EXPECT_EQ(totals.data_mismatches, 0u);
  EXPECT_DOUBLE_EQ(totals.first_arrival_ns, first_ns);
  EXPECT_DOUBLE_EQ(totals.last_arrival_ns, first_ns + step_ns * 63);
  const double last_latency = first_ns + (step_ns - interval_ns) * 63;
  EXPECT_DOUBLE_EQ(totals.min_latency_ns, std::min(first_ns, last_latency));
  EXPECT_DOUBLE_EQ(totals.max_latency_ns, std::max(first_ns, last_latency));
  EXPECT_DOUBLE_EQ(p->mean_latency_ns, (first_ns + last_latency) / 2);  // evenly spaced
}

// The variants both compositions run.
class SeedFigure : public ::testing::TestWithParam<Composition> {
 protected:
  SeedRun run(const std::vector<std::string>& overrides = {}) const {
    return run_seed(GetParam(), overrides);
  }
  std::string dma_latency(double ns) const {
    return std::string(GetParam().dma_latency_key) + "=" + std::to_string(ns);
  }
};

SeedRun run_stages(const std::vector<std::string>& overrides) { return run_seed(kStages, overrides); }

TEST_P(SeedFigure, EthernetTakesFourNanosecondsAndRdmaThreeBothAt100Gbps) {
  // Every stage moves 100 bits at 100 Gbit/s (1 ns) and the application makes
  // a Data every 1 ns: Ethernet crosses four stages (4 ns), RDMA three (3 ns),
  // no Data ever waits, and one Data arrives per ns: 100 Gbit/s.
  const SeedRun result = run();
  const Path ethernet = path(result, "ethernet");
  const Path rdma = path(result, "rdma");
  EXPECT_EQ(stage_names(ethernet),
            (std::vector<std::string>{"app_write", "kernel_copy", "dma", "wire"}));
  EXPECT_EQ(stage_names(rdma), (std::vector<std::string>{"app_write", "dma", "wire"}));
  EXPECT_DOUBLE_EQ(ethernet->first_latency_ns, 4);
  EXPECT_DOUBLE_EQ(rdma->first_latency_ns, 3);
  expect_arrivals(ethernet, 4, 1, 1);
  expect_arrivals(rdma, 3, 1, 1);
  EXPECT_DOUBLE_EQ(ethernet->steady_gbps, 100);
  EXPECT_DOUBLE_EQ(rdma->steady_gbps, 100);
  // All stages tie with the producer; the tie goes to the wire.
  EXPECT_EQ(ethernet->bottleneck, "wire");
  EXPECT_EQ(rdma->bottleneck, "wire");
  // Data 2 on the Ethernet path: app 2-3, kernel copy 3-4, DMA 4-5, wire 5-6.
  EXPECT_EQ(ethernet.data[2].stage_start_ns, (std::vector<double>{2, 3, 4, 5}));
  EXPECT_EQ(ethernet.data[2].stage_end_ns, (std::vector<double>{3, 4, 5, 6}));
}

TEST_P(SeedFigure, TwoNanosecondStagesWith200BitDataEveryTwoNanoseconds) {
  // Variant (a): 200 bits at 100 Gbit/s = 2 ns per stage, a Data every 2 ns.
  // Ethernet 4 x 2 = 8 ns, RDMA 3 x 2 = 6 ns; one 200-bit Data per 2 ns = 100 Gbit/s.
  const SeedRun result =
      run({"workload.data_bits=200", "workload.interval_ns=2"});
  const Path ethernet = path(result, "ethernet");
  const Path rdma = path(result, "rdma");
  EXPECT_DOUBLE_EQ(ethernet->first_latency_ns, 8);
  EXPECT_DOUBLE_EQ(rdma->first_latency_ns, 6);
  expect_arrivals(ethernet, 8, 2, 2);
  expect_arrivals(rdma, 6, 2, 2);
  EXPECT_DOUBLE_EQ(ethernet->steady_gbps, 100);
  EXPECT_DOUBLE_EQ(rdma->steady_gbps, 100);
}

TEST_P(SeedFigure, ASlowerWireIsTheBottleneckAndLatencyGrowsWithTheIndex) {
  // Variant (b): the wire at 50 Gbit/s needs 2 ns per Data while a new one
  // comes every 1 ns. On the RDMA path Data 0 reaches the wire at 2 ns and
  // arrives at 4; the wire is then never idle, so Data i arrives at 4 + 2i and
  // its latency is 4 + 2i - i = 4 + i. Ethernet reaches the wire 1 ns later:
  // 5 + 2i, latency 5 + i. Bandwidth: 100 bits per 2 ns = 50 Gbit/s.
  const SeedRun result = run({"link.gbps=50"});
  const Path ethernet = path(result, "ethernet");
  const Path rdma = path(result, "rdma");
  expect_arrivals(ethernet, 5, 2, 1);
  expect_arrivals(rdma, 4, 2, 1);
  for (std::size_t i = 0; i < 64; ++i) {
    EXPECT_DOUBLE_EQ(ethernet.data[i].latency_ns, 5.0 + i);
    EXPECT_DOUBLE_EQ(rdma.data[i].latency_ns, 4.0 + i);
  }
  EXPECT_DOUBLE_EQ(ethernet->steady_gbps, 50);
  EXPECT_DOUBLE_EQ(rdma->steady_gbps, 50);
  EXPECT_EQ(ethernet->bottleneck, "wire");
  EXPECT_EQ(rdma->bottleneck, "wire");
}

TEST(SeedPipeline, BackpressureFromAOneItemQueueDoesNotChangeWhatTheWireDelivers) {
  // Same as (b) with room for one item in front of each stage: the stages
  // before the wire now wait for it, but with no stage latency to cover the
  // wire is still never idle, so the arrivals are those of (b) and the wait
  // shows up as blocked time.
  const SeedRun result = run_stages({"link.gbps=50", "pipeline.queue_items=1"});
  const Path ethernet = path(result, "ethernet");
  const Path rdma = path(result, "rdma");
  expect_arrivals(ethernet, 5, 2, 1);
  expect_arrivals(rdma, 4, 2, 1);
  EXPECT_GT(rdma->stages[1].stats.blocked, sc_core::SC_ZERO_TIME);
  EXPECT_GT(ethernet->stages[2].stats.blocked, sc_core::SC_ZERO_TIME);
  EXPECT_EQ(ethernet->bottleneck, "wire");
  EXPECT_EQ(rdma->bottleneck, "wire");
}

TEST(SeedPipeline, AQueueTooSmallForAStagesLatencyLimitsBandwidthAtThatStage) {
  // One item of room after a DMA stage with 10 ns latency: the queue holds the
  // item for its whole flight, so the DMA stage can hand on one item per
  // 10 ns. RDMA: Data 0 is read 1-2 ns, visible at 12, on the wire 12-13;
  // each later Data leaves the DMA stage 10 ns after the one before. The DMA
  // stage is held 10 ns per item (1 busy + 9 blocked), as is every stage
  // before it; it is the last of them, so it is the bottleneck.
  const SeedRun result = run_stages({"dma.latency_ns=10", "pipeline.queue_items=1"});
  const Path ethernet = path(result, "ethernet");
  const Path rdma = path(result, "rdma");
  for (std::size_t i = 0; i < rdma.data.size(); ++i) {
    EXPECT_DOUBLE_EQ(rdma.data[i].arrival_ns, 13 + 10.0 * i) << i;
    EXPECT_DOUBLE_EQ(ethernet.data[i].arrival_ns, 14 + 10.0 * i) << i;
  }
  EXPECT_DOUBLE_EQ(rdma->steady_gbps, 10);
  EXPECT_DOUBLE_EQ(ethernet->steady_gbps, 10);
  EXPECT_EQ(rdma->bottleneck, "dma");
  EXPECT_EQ(ethernet->bottleneck, "dma");
}

TEST_P(SeedFigure, PropagationAndDmaLatencyAddToLatencyButNotToBandwidth) {
  // Variant (c): 5 ns of cable and a fixed 10 ns DMA latency are pipelined:
  // every Data takes 15 ns longer (Ethernet 19, RDMA 18) and one still arrives
  // every ns: 100 Gbit/s.
  const SeedRun result = run({"link.propagation_ns=5", dma_latency(10)});
  const Path ethernet = path(result, "ethernet");
  const Path rdma = path(result, "rdma");
  expect_arrivals(ethernet, 19, 1, 1);
  expect_arrivals(rdma, 18, 1, 1);
  EXPECT_DOUBLE_EQ(ethernet->steady_gbps, 100);
  EXPECT_DOUBLE_EQ(rdma->steady_gbps, 100);
}

TEST_P(SeedFigure, AProducerSlowerThanEveryStageIsTheBottleneck) {
  // A Data every 4 ns through 1 ns stages: nothing waits, 100 bits per 4 ns.
  const SeedRun result = run({"workload.interval_ns=4"});
  const Path rdma = path(result, "rdma");
  expect_arrivals(rdma, 3, 4, 4);
  EXPECT_DOUBLE_EQ(rdma->steady_gbps, 25);
  EXPECT_EQ(rdma->bottleneck, "workload");
}

TEST_P(SeedFigure, EthernetFramingPutsHeadersOnTheWire) {
  // A 13-byte Data on the wire: RoCEv2 WRITE ONLY is 114 B with preamble and
  // IFG (9.12 ns at 100G), TCP/IPv4 91 B (7.28 ns). Both wires become the
  // bottleneck; Ethernet arrives first at 3 + 7.28 ns, RDMA at 2 + 9.12 ns.
  const SeedRun result = run({"link.framing=ethernet"});
  const Path ethernet = path(result, "ethernet");
  const Path rdma = path(result, "rdma");
  EXPECT_DOUBLE_EQ(ethernet->first_latency_ns, 10.28);
  EXPECT_DOUBLE_EQ(rdma->first_latency_ns, 11.12);
  EXPECT_NEAR(ethernet->steady_gbps, 100.0 / 7.28, 1e-9);
  EXPECT_NEAR(rdma->steady_gbps, 100.0 / 9.12, 1e-9);
  EXPECT_EQ(ethernet->bottleneck, "wire");
  EXPECT_EQ(rdma->bottleneck, "wire");
}

TEST_P(SeedFigure, ASlowerKernelCopyHoldsBackTheEthernetPathAlone) {
  // The kernel copy at 50 Gbit/s takes 2 ns per Data: Data i is copied from
  // 1 + 2i to 3 + 2i (the copy is never idle after Data 0), read 3 + 2i to
  // 4 + 2i and on the wire to 5 + 2i, so its latency is 5 + i; 100 bits per
  // 2 ns = 50 Gbit/s. The RDMA path has no copy and stays at 3 ns, 100 Gbit/s.
  const SeedRun result = run({"host.kernel_copy_gbps=50"});
  const Path ethernet = path(result, "ethernet");
  const Path rdma = path(result, "rdma");
  expect_arrivals(ethernet, 5, 2, 1);
  expect_arrivals(rdma, 3, 1, 1);
  EXPECT_DOUBLE_EQ(ethernet->steady_gbps, 50);
  EXPECT_DOUBLE_EQ(rdma->steady_gbps, 100);
  EXPECT_EQ(ethernet->bottleneck, "kernel_copy");
  EXPECT_EQ(rdma->bottleneck, "wire");
}

TEST(SeedNic, TheDmaStepCrossesTheNicsEngineAndTheHostsIdealPcieLink) {
  // What makes the testbed composition more than the stages again: each
  // Data's read crosses host a's PCIe link as MRds and completions (payload
  // alone: 13 bytes, of which the 100 bits take 1 ns), through NIC a's DMA
  // engine, and the Data cross the testbed's wire a_to_b.
  config::RunConfig doc(config::load_config(kConfigs + kTestbed.config, {}, rnicsim_schema()));
  const PipelineConfig config = pipeline_config(doc);
  ASSERT_TRUE(config.testbed.has_value());
  EXPECT_TRUE(config.testbed->nodes[0].host.pcie.ideal);
  EXPECT_EQ(config.testbed->topology.nodes, (std::vector<std::string>{"a", "b"}));
  // The rings hold a queue, the Data whose reads are in flight and one more
  // waiting for a tag, plus the one being written: 64 + 1 + (tags + 1).
  EXPECT_EQ(config.buffer_slots, 64u + 1 + config.dma_reads_in_flight + 1);
  const SeedRun result = run_seed(kTestbed);
  for (const char* name : {"ethernet", "rdma"}) {
    const Path p = path(result, name);
    ASSERT_TRUE(p->testbed.has_value()) << name;
    // Data i sits at 13 * i in its ring (at a 512-byte-aligned base): Data
    // 39, at 507..519, crosses an MRRS boundary and takes two MRds.
    EXPECT_EQ(p->testbed->pcie_read_requests, 65u) << name;
    EXPECT_EQ(p->testbed->pcie_completion_bytes, 64u * 13) << name;
    EXPECT_EQ(p->testbed->pcie_dllps, 0u) << name;
    EXPECT_EQ(p->testbed->dma_bytes_read, 64u * 13) << name;
    EXPECT_EQ(p->testbed->wire_frames, 64u) << name;
  }
}

TEST(SeedNic, ReadsInFlightBehindALongLatencyNeverSeeTheirBufferRewritten) {
  // 100 ns at the root complex and 256 read tags: about 100 reads are in
  // flight while the application goes on writing its ring. Every Data must
  // arrive with its own bytes (a mismatch stops the run), one per ns, at
  // most 103 ns after it was made on the RDMA path (write, the 100 ns answer
  // and the 1 ns completion, wire), one more on the Ethernet path.
  const SeedRun result = run_seed(kTestbed, {"pcie.root_complex_latency_ns=100",
                                             "dma.read_tags=256", "workload.count=1000"});
  for (const char* name : {"ethernet", "rdma"}) {
    const Path p = path(result, name);
    EXPECT_EQ(p->arrivals.arrived, 1000u) << name;
    EXPECT_EQ(p->arrivals.data_mismatches, 0u) << name;
    EXPECT_DOUBLE_EQ(p->steady_gbps, 100) << name;
  }
  EXPECT_DOUBLE_EQ(path(result, "rdma")->arrivals.max_latency_ns, 103);
  EXPECT_DOUBLE_EQ(path(result, "ethernet")->arrivals.max_latency_ns, 104);
}

TEST(SeedNic, TooFewReadTagsForTheLatencyMakeTheDmaStepTheBottleneck) {
  // 4 tags, 10 ns at the root complex: a read takes 11 ns (answer, then the
  // 1 ns completion) and its tag is free again when its Data leaves, so Data
  // k arrives 11 ns after Data k - 4: 4 x 100 bits per 11 ns. (Until Data
  // 39, which crosses an MRRS boundary: its two MRds hold two of the
  // engine's four tags.) The Data waiting for a tag are the dma stage's
  // blocked time.
  const SeedRun result =
      run_seed(kTestbed, {"pcie.root_complex_latency_ns=10", "dma.read_tags=4"});
  const Path rdma = path(result, "rdma");
  ASSERT_EQ(rdma.data.size(), 64u);
  for (std::size_t k = 4; k < 39; ++k) {
    EXPECT_DOUBLE_EQ(rdma.data[k].arrival_ns, rdma.data[k - 4].arrival_ns + 11) << k;
  }
  EXPECT_EQ(rdma->bottleneck, "dma");
  EXPECT_EQ(path(result, "ethernet")->bottleneck, "dma");
  EXPECT_GT(rdma->stages[1].stats.blocked, sc_core::SC_ZERO_TIME);
}

TEST(SeedNic, KeysTheTestbedDoesNotReadAreRefused) {
  // The DMA step is the NIC's engine and the PCIe link, and the wire carries
  // bare Data with no transport to recover a fault: the stage view's DMA
  // timing and the cable faults are read by no block here.
  for (const char* key : {"dma.latency_ns=10", "dma.gbps=1", "faults.loss_rate=0.5"}) {
    EXPECT_THROW(
        {
          config::RunConfig doc(
              config::load_config(kConfigs + kTestbed.config, {key}, rnicsim_schema()));
          pipeline_config(doc);
          doc.require_all_read("pipeline");
        },
        config::ConfigError)
        << key;
  }
}

INSTANTIATE_TEST_SUITE_P(Compositions, SeedFigure, ::testing::Values(kStages, kTestbed),
                         [](const ::testing::TestParamInfo<Composition>& param) {
                           return std::string(param.param.name);
                         });

}  // namespace
}  // namespace rnicsim
