// PerfWorkload (program/experiments/perf/perf_workload.hpp) on a two-node
// testbed, without the perf experiment around it: the rows it gives, which
// node posts, whose core the verbs charge, and that the sides follow the
// roles, not the node order.
#include "program/experiments/perf/perf_workload.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "common/run_progress.hpp"
#include "common/simulation.hpp"
#include "rc_bench.hpp"
#include "system/testbed.hpp"

namespace rnicsim {
namespace {

struct WorkloadRun {
  PerfResult result;
  std::string report;
  std::uint64_t request_packets[2] = {0, 0};  // by testbed node
  double core_busy_ns[2] = {0, 0};            // by side: client, server
  std::vector<double> thread_busy_ns[2];      // by side, each thread's core
  std::vector<std::string> thread_core_names[2];
};

// Runs `args` (perftest's command line) with the client on node `client` of
// nodes a and b.
WorkloadRun run_workload(const std::vector<std::string>& args, std::size_t client) {
  config::RunConfig run(testing::loaded_config(config::Json::object()));
  TestbedRequest request;
  request.host_software = true;
  request.verbs = true;
  Testbed testbed("testbed", testbed_config(run, request));
  PerfEnds ends;
  ends.client = client;
  ends.server = 1 - client;
  ends.client_name = client == 0 ? "a" : "b";
  ends.server_name = client == 0 ? "b" : "a";
  const perf::PerfOptions options = perf::parse_perf_options(args);
  std::ostringstream report;
  RunProgress progress(nullptr);
  PerfWorkload workload("perf", testbed, ends, options, report, progress);
  simulate_workload(1);
  WorkloadRun out;
  out.result = std::move(workload.result());
  out.report = report.str();
  for (std::size_t i = 0; i < 2; ++i) {
    out.request_packets[i] = testbed.node(i).nic.transport.stats().request_packets;
    out.core_busy_ns[i] = to_ns(workload.core(i).total_busy());
    for (const CpuCore* core : workload.cores(i)) {
      out.thread_busy_ns[i].push_back(to_ns(core->total_busy()));
      out.thread_core_names[i].push_back(core->name());
    }
  }
  return out;
}

TEST(PerfWorkload, WriteLatGivesOneRowPerSizeWithEveryIteration) {
  const WorkloadRun r = run_workload({"write_lat", "-s", "64", "-n", "20"}, 0);
  ASSERT_EQ(r.result.latency.size(), 1U);
  const perf::LatencyRow& row = r.result.latency[0];
  EXPECT_EQ(row.bytes, 64U);
  EXPECT_EQ(row.iterations, 20U);
  EXPECT_LE(row.t_min_usec, row.t_typical_usec);
  EXPECT_LE(row.t_typical_usec, row.t_max_usec);
  // Ping-pong: each side writes once per iteration, one packet each.
  EXPECT_EQ(r.request_packets[0], 20U);
  EXPECT_EQ(r.request_packets[1], 20U);
  EXPECT_GT(r.core_busy_ns[0], 0);
  EXPECT_GT(r.core_busy_ns[1], 0);
  EXPECT_NE(r.report.find("RDMA_Write Latency Test"), std::string::npos);
}

// write_bw: the client posts every message, the server's core does nothing.
TEST(PerfWorkload, WriteBwPostsFromTheClientsNodeAlone) {
  const WorkloadRun r = run_workload({"write_bw", "-s", "8192", "-n", "5"}, 0);
  ASSERT_EQ(r.result.bandwidth.size(), 1U);
  EXPECT_EQ(r.result.bandwidth[0].iterations, 5U);
  EXPECT_EQ(r.request_packets[0], 5U * 8U);  // 8 KiB at PMTU 1024
  EXPECT_EQ(r.request_packets[1], 0U);
  EXPECT_GT(r.core_busy_ns[0], 0);
  EXPECT_EQ(r.core_busy_ns[1], 0);
}

// The client on node b: node b posts, and side 0's core (the client's) is
// the busy one. (One simulation per process: the node-a run is the test above.)
TEST(PerfWorkload, TheClientIsTheRolesNodeNotTheFirstNode) {
  const WorkloadRun r = run_workload({"write_bw", "-s", "8192", "-n", "5"}, 1);
  ASSERT_EQ(r.result.bandwidth.size(), 1U);
  EXPECT_EQ(r.request_packets[1], 5U * 8U);
  EXPECT_EQ(r.request_packets[0], 0U);
  EXPECT_GT(r.core_busy_ns[0], 0);
  EXPECT_EQ(r.core_busy_ns[1], 0);
}

// --threads 4 over 16 QPs: QP q on thread q % 4, each thread on its own core.
// The run checks every QP's target bytes after the size (a difference fails
// it); every post costs its thread's core 60 ns of posting and 50 ns of
// doorbell MMIO, and every poll that finds completions 40 ns more.
TEST(PerfWorkload, ThreadsPostTheirOwnQpsMessagesOnTheirOwnCores) {
  const WorkloadRun r =
      run_workload({"write_bw", "-s", "64", "-n", "10", "-q", "16", "--threads", "4"}, 0);
  ASSERT_EQ(r.result.bandwidth.size(), 1U);
  EXPECT_EQ(r.result.bandwidth[0].iterations, 160U);
  EXPECT_EQ(r.request_packets[0], 160U);
  EXPECT_EQ(r.request_packets[1], 0U);
  EXPECT_EQ(r.thread_core_names[0],
            (std::vector<std::string>{"a.app_core", "a.app_core1", "a.app_core2", "a.app_core3"}));
  EXPECT_EQ(r.thread_core_names[1], (std::vector<std::string>{"b.app_core"}));
  for (double busy : r.thread_busy_ns[0]) {
    const double posting = 4 * 10 * 110.0;  // 4 QPs x 10 messages
    EXPECT_GE(busy, posting + 40);
    EXPECT_NEAR(std::fmod(busy - posting, 40.0), 0.0, 1e-6) << busy;
  }
  EXPECT_EQ(r.thread_busy_ns[1], (std::vector<double>{0.0}));
}

// send_bw: as many server threads, each reposting its own QPs' receives.
TEST(PerfWorkload, SendBwThreadsReceiveOnTheirOwnServerCores) {
  const WorkloadRun r =
      run_workload({"send_bw", "-s", "64", "-n", "10", "-q", "8", "--threads", "2"}, 0);
  ASSERT_EQ(r.result.bandwidth.size(), 1U);
  EXPECT_EQ(r.result.bandwidth[0].iterations, 80U);
  EXPECT_EQ(r.request_packets[0], 80U);
  ASSERT_EQ(r.thread_busy_ns[0].size(), 2U);
  ASSERT_EQ(r.thread_busy_ns[1].size(), 2U);
  for (double busy : r.thread_busy_ns[0]) EXPECT_GE(busy, 4 * 10 * 110.0);
  for (double busy : r.thread_busy_ns[1]) EXPECT_GT(busy, 0.0);
}

}  // namespace
}  // namespace rnicsim
