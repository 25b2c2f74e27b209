// PerfWorkload (program/experiments/perf/perf_workload.hpp) on a two-node
// testbed, without the perf experiment around it: the rows it gives, which
// node posts, whose core the verbs charge, and that the sides follow the
// roles, not the node order.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "common/run_progress.hpp"
#include "common/simulation.hpp"
#include "program/experiments/perf/perf_workload.hpp"
#include "rc_bench.hpp"
#include "system/testbed.hpp"

namespace rnicsim {
namespace {

struct WorkloadRun {
  PerfResult result;
  std::string report;
  std::uint64_t request_packets[2] = {0, 0};  // by testbed node
  double core_busy_ns[2] = {0, 0};            // by side: client, server
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

}  // namespace
}  // namespace rnicsim
