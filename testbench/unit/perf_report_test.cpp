// perftest's statistics and output from raw timestamps: latency rows as
// print_report_lat computes them, bandwidth rows as print_report_bw does, and
// every line in perftest's exact format (expected strings written out by hand
// from the printf formats in perftest_parameters.h).
#include "program/experiments/perf/perf_report.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace rnicsim::perf {
namespace {

constexpr const char* kDashes =
    "---------------------------------------------------------------------------------------\n";

PerfOptions parse(std::vector<std::string> args) { return parse_perf_options(args); }

// Post times whose gaps are `gaps` (picoseconds), from t = 0.
std::vector<std::uint64_t> posts_with_gaps(const std::vector<std::uint64_t>& gaps) {
  std::vector<std::uint64_t> posts{0};
  for (std::uint64_t gap : gaps) posts.push_back(posts.back() + gap);
  return posts;
}

// As a terminal shows a line: tabs to the next multiple of 8 columns.
std::string expand_tabs(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\t') {
      out.append(8 - out.size() % 8, ' ');
    } else {
      out += c;
    }
  }
  return out;
}

TEST(LatencyRow, TopTwoDroppedMedianMeanAndPercentilesByHand) {
  // Seven round trips (us): 2.0 2.2 2.1 9.0 2.4 2.3 5.0. Sorted, the two
  // largest (9.0, 5.0) drop out of the statistics: m = 5 samples, 2.0 .. 2.4.
  const auto posts =
      posts_with_gaps({2000000, 2200000, 2100000, 9000000, 2400000, 2300000, 5000000});
  const LatencyRow row = latency_row(2, posts, PerfTest::kWriteLat);  // one way: RTT / 2
  EXPECT_EQ(row.bytes, 2u);
  EXPECT_EQ(row.iterations, 8u);
  EXPECT_DOUBLE_EQ(row.t_min_usec, 1.0);
  EXPECT_DOUBLE_EQ(row.t_max_usec, 2.5);      // d[m]: the larger of the two left out is not
  EXPECT_DOUBLE_EQ(row.t_typical_usec, 1.1);  // m odd: d[2]
  EXPECT_NEAR(row.t_avg_usec, 1.1, 1e-12);
  // Deviations -0.1 -0.05 0 0.05 0.1: sqrt(0.025 / 5), not perftest's int-truncated 0.
  EXPECT_NEAR(row.t_stdev_usec, std::sqrt(0.005), 1e-12);
  EXPECT_DOUBLE_EQ(row.p99_usec, 2.5);  // d[ceil(4.95)] = d[5]
  EXPECT_DOUBLE_EQ(row.p99_9_usec, 2.5);
}

TEST(LatencyRow, ReadAndAtomicReportTheRoundTrip) {
  const auto posts =
      posts_with_gaps({2000000, 2200000, 2100000, 9000000, 2400000, 2300000, 5000000});
  EXPECT_DOUBLE_EQ(latency_row(2, posts, PerfTest::kReadLat).t_typical_usec, 2.2);
  EXPECT_DOUBLE_EQ(latency_row(8, posts, PerfTest::kAtomicLat).t_min_usec, 2.0);
  EXPECT_DOUBLE_EQ(latency_row(2, posts, PerfTest::kSendLat).t_typical_usec, 1.1);
}

TEST(LatencyRow, ThousandSamplesInAnyOrder) {
  // 1002 gaps of 1000 .. 2001 ns, shuffled: m = 1000 kept (1000 .. 1999 ns).
  std::vector<std::uint64_t> gaps(1002);
  for (std::size_t k = 0; k < gaps.size(); ++k) gaps[k] = (1000 + k) * 1000;
  std::mt19937 random(7);
  std::shuffle(gaps.begin(), gaps.end(), random);
  const LatencyRow row = latency_row(64, posts_with_gaps(gaps), PerfTest::kReadLat);
  EXPECT_EQ(row.iterations, 1003u);
  EXPECT_DOUBLE_EQ(row.t_min_usec, 1.0);
  EXPECT_DOUBLE_EQ(row.t_max_usec, 2.0);         // d[1000]
  EXPECT_DOUBLE_EQ(row.t_typical_usec, 1.4995);  // m even: (d[499] + d[500]) / 2
  EXPECT_NEAR(row.t_avg_usec, 1.4995, 1e-12);
  // Population deviation of 1000 consecutive nanoseconds: sqrt((1000^2 - 1) / 12).
  EXPECT_NEAR(row.t_stdev_usec, std::sqrt(999999.0 / 12) / 1000, 1e-12);
  EXPECT_DOUBLE_EQ(row.p99_usec, 1.990);    // d[ceil(990)]
  EXPECT_DOUBLE_EQ(row.p99_9_usec, 1.999);  // d[ceil(999)]
}

TEST(LatencyRow, AnEvenMedianIsTakenInWholePicoseconds) {
  // m = 4: (d[1] + d[2]) / 2 = (1000002 + 1000005) / 2 = 1000003 ps, as
  // perftest's integer cycles truncate it.
  const auto posts = posts_with_gaps({1000005, 1000001, 5000000, 1000002, 1000007, 6000000});
  EXPECT_DOUBLE_EQ(latency_row(2, posts, PerfTest::kReadLat).t_typical_usec, 1.000003);
}

TEST(LatencyRow, RefusesTooFewOrUnorderedPosts) {
  EXPECT_THROW(latency_row(2, {0, 1, 2, 3}, PerfTest::kWriteLat), std::invalid_argument);
  EXPECT_THROW(latency_row(2, {0, 1, 2, 4, 3}, PerfTest::kWriteLat), std::invalid_argument);
  EXPECT_NO_THROW(latency_row(2, {0, 1, 2, 3, 4}, PerfTest::kWriteLat));
}

// Eight 4 KiB writes posted 100 ns apart, a completion every 4: messages 0-3
// complete at 1 us, 4-7 at 2.048 us.
struct EightWrites {
  PerfOptions options = parse({"write_bw", "-n", "8", "-Q", "4", "-s", "4096"});
  std::vector<std::uint64_t> posted{0, 100000, 200000, 300000, 400000, 500000, 600000, 700000};
  std::vector<std::uint64_t> completed{1000000, 1000000, 1000000, 1000000,
                                       2048000, 2048000, 2048000, 2048000};
};

TEST(BwRow, AverageOverFirstPostToLastCompletionPeakOverCqGroups) {
  const EightWrites run;
  ASSERT_EQ(run.options.cq_moderation, 4u);
  const BwRow row = bw_row(4096, run.posted, run.completed, run.options);
  EXPECT_EQ(row.bytes, 4096u);
  EXPECT_EQ(row.iterations, 8u);
  // 32768 B in 2.048 us.
  EXPECT_DOUBLE_EQ(row.bw_avg_gbps, 128.0);
  EXPECT_DOUBLE_EQ(row.bw_avg_mib, 15258.7890625);
  EXPECT_DOUBLE_EQ(row.msg_rate_mpps, 3.90625);
  // Best window: posts 0..3 to their completion, 1 us / 4 = 250 ns a message.
  EXPECT_DOUBLE_EQ(row.bw_peak_gbps, 131.072);
  EXPECT_DOUBLE_EQ(row.bw_peak_mib, 15625.0);
}

TEST(BwRow, APartialLastGroupIsAWindowToo) {
  // Six messages, completions every 4: the last one (5) is signaled too.
  // Best: posts 0..5 over 1.3 us, 216666 ps each (whole picoseconds).
  const PerfOptions options = parse({"write_bw", "-n", "6", "-Q", "4", "-s", "4096"});
  const std::vector<std::uint64_t> posted{0, 100000, 200000, 300000, 400000, 500000};
  const std::vector<std::uint64_t> completed{900000, 900000, 900000, 900000, 1300000, 1300000};
  const BwRow row = bw_row(4096, posted, completed, options);
  EXPECT_DOUBLE_EQ(row.bw_peak_gbps, 4096e12 / 216666.0 / 125e6);
  EXPECT_DOUBLE_EQ(row.msg_rate_mpps, 6e12 / (1300000.0 * 1e6));
}

TEST(BwRow, NoPeakAboveTwentyThousandIterations) {
  const PerfOptions options = parse({"write_bw", "-n", "20001", "-q", "2"});
  // Only the first post and the last completion, as perftest keeps them.
  const BwRow row = bw_row(65536, {1000}, {2000001000}, options);
  EXPECT_EQ(row.iterations, 40002u);
  EXPECT_EQ(row.bw_peak_gbps, 0.0);
  EXPECT_EQ(row.bw_peak_mib, 0.0);
  EXPECT_DOUBLE_EQ(row.bw_avg_gbps, 65536.0 * 40002 * 1e12 / (2e9 * 125e6));
  EXPECT_DOUBLE_EQ(row.msg_rate_mpps, 40002 * 1e12 / (2e9 * 1e6));
}

TEST(BwRow, RefusesTimestampsThatDoNotFitTheRun) {
  const EightWrites run;
  EXPECT_THROW(bw_row(4096, {0}, {2048000}, run.options), std::invalid_argument);
  std::vector<std::uint64_t> short_run(run.posted.begin(), run.posted.end() - 1);
  EXPECT_THROW(bw_row(4096, short_run, run.completed, run.options), std::invalid_argument);
  std::vector<std::uint64_t> early = run.completed;
  early[3] = 250000;  // before post 3
  EXPECT_THROW(bw_row(4096, run.posted, early, run.options), std::invalid_argument);
}

TEST(PerfFormat, LatencyRowIsPerftestsReportFmtLat) {
  const LatencyRow row{64, 5, 133.68, 177.55, 138.80, 138.80, 5.00, 177.55, 177.55};
  const std::string line = format_latency_row(row);
  EXPECT_EQ(
      line,
      " 64      5          133.68         177.55       138.80   \t       138.80      \t5.00   "
      "\t\t177.55  \t\t177.55 \n");
  // The rxe run in REFERENCE.md section 10, as its terminal showed it.
  EXPECT_EQ(expand_tabs(line),
            " 64      5          133.68         177.55       138.80                 138.80       "
            "    5.00            177.55                  177.55 \n");
}

TEST(PerfFormat, BwRowInMibGbitsAndSixDecimalsBelowATenthOfAGbit) {
  const EightWrites run;
  const BwRow row = bw_row(4096, run.posted, run.completed, run.options);
  EXPECT_EQ(format_bw_row(row, false),
            " 4096       8                15625.00            15258.79\t\t     3.906250\n");
  EXPECT_EQ(format_bw_row(row, true),
            " 4096       8                131.07             128.00 \t\t     3.906250\n");
  BwRow slow;
  slow.bytes = 2;
  slow.iterations = 1000;
  slow.bw_peak_gbps = 0.05;
  slow.bw_avg_gbps = 0.04;
  slow.msg_rate_mpps = 2.5;
  EXPECT_EQ(format_bw_row(slow, true),
            " 2          1000           0.050000            0.040000            2.500000\n");
}

TEST(PerfFormat, TableHeadersAndFooter) {
  EXPECT_EQ(format_table_header(parse({"write_lat"})),
            std::string(kDashes) +
                " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    "
                "t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] \n");
  EXPECT_EQ(format_table_header(parse({"read_bw"})),
            std::string(kDashes) +
                " #bytes     #iterations    BW peak[MiB/sec]    BW average[MiB/sec]   "
                "MsgRate[Mpps]\n");
  EXPECT_EQ(format_table_header(parse({"read_bw", "--report_gbits"})),
            std::string(kDashes) +
                " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   "
                "MsgRate[Mpps]\n");
  EXPECT_EQ(format_table_footer(), kDashes);
}

// The two QPs of REFERENCE.md section 10's banner.
BannerInfo reference_info() {
  BannerInfo info;
  info.device = "mlx5_0";
  info.active_mtu = 1024;
  info.gid_index = 3;
  QpAddress local;
  local.qpn = 0x109;
  local.psn = 0xad9c34;
  local.out_reads = 16;
  local.rkey = 0x413c;
  local.vaddr = 0x7f93aab9e000;
  local.gid = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 192, 168, 111, 4};
  QpAddress remote = local;
  remote.qpn = 0x10a;
  remote.psn = 0xd5981f;
  remote.rkey = 0x4b4f;
  remote.vaddr = 0x7fe88ecdd000;
  remote.gid[15] = 3;
  info.local = {local};
  info.remote = {remote};
  return info;
}

TEST(PerfFormat, WriteLatencyBanner) {
  EXPECT_EQ(format_banner(parse({"ib_write_lat"}), reference_info()),
            std::string("Disabling dynamic polling\n") + kDashes +
                "                    RDMA_Write Latency Test\n"
                " Dual-port       : OFF\t\tDevice         : mlx5_0\n"
                " Number of qps   : 1\t\tTransport type : IB\n"
                " Connection type : RC\t\tUsing SRQ      : OFF\n"
                " PCIe relax order: ON\t\tLock-free      : OFF\n"
                " ibv_wr* API     : ON\t\tUsing Enhanced Reorder      : OFF\n"
                " TX depth        : 1\n"
                " Mtu             : 1024[B]\n"
                " Link type       : Ethernet\n"
                " GID index       : 3\n"
                " Max inline data : 220[B]\n"
                " rdma_cm QPs\t : OFF\n"
                " Data ex. method : Ethernet\n" +
                kDashes +
                " local address: LID 0000 QPN 0x0109 PSN 0xad9c34 RKey 0x00413c VAddr "
                "0x007f93aab9e000\n"
                " GID: 00:00:00:00:00:00:00:00:00:00:255:255:192:168:111:04\n"
                " remote address: LID 0000 QPN 0x010a PSN 0xd5981f RKey 0x004b4f VAddr "
                "0x007fe88ecdd000\n"
                " GID: 00:00:00:00:00:00:00:00:00:00:255:255:192:168:111:03\n");
}

TEST(PerfFormat, WriteBwBannerHasCqModerationAndPollBatch) {
  BannerInfo info = reference_info();
  info.active_mtu = 4096;
  info.gid_index = -1;
  const std::string banner = format_banner(parse({"write_bw"}), info);
  EXPECT_EQ(banner.substr(0, banner.find(" local address")),
            std::string(kDashes) +
                "                    RDMA_Write BW Test\n"
                " Dual-port       : OFF\t\tDevice         : mlx5_0\n"
                " Number of qps   : 1\t\tTransport type : IB\n"
                " Connection type : RC\t\tUsing SRQ      : OFF\n"
                " PCIe relax order: ON\t\tLock-free      : OFF\n"
                " ibv_wr* API     : ON\t\tUsing Enhanced Reorder      : OFF\n"
                " TX depth        : 128\n"
                " CQ Moderation   : 1\n"
                " CQE Poll Batch  : Dynamic\n"
                " Mtu             : 4096[B]\n"
                " Link type       : Ethernet\n"
                " Max inline data : 0[B]\n"
                " rdma_cm QPs\t : OFF\n"
                " Data ex. method : Ethernet\n" +
                kDashes);
  // No GID index, no GID lines.
  EXPECT_EQ(banner.find(" GID"), std::string::npos);
}

TEST(PerfFormat, AtomicAndReadBannersShowOutstandingReads) {
  const std::string atomic =
      format_banner(parse({"atomic_bw", "-A", "CMP_AND_SWAP"}), reference_info());
  EXPECT_EQ(atomic.rfind("Disabling dynamic polling\n", 0), 0u);
  EXPECT_NE(atomic.find("                    Atomic CMP_AND_SWAP BW Test\n"), std::string::npos);
  EXPECT_NE(atomic.find(" CQ Moderation   : 100\n CQE Poll Batch  : 16\n"), std::string::npos);
  EXPECT_NE(atomic.find(" GID index       : 3\n Outstand reads  : 16\n rdma_cm"),
            std::string::npos);
  // perftest prints no key nor address for an atomic QP.
  EXPECT_NE(atomic.find(" local address: LID 0000 QPN 0x0109 PSN 0xad9c34\n"), std::string::npos);

  const std::string read = format_banner(parse({"read_lat"}), reference_info());
  EXPECT_NE(read.find("                    RDMA_Read Latency Test\n"), std::string::npos);
  EXPECT_NE(read.find(" local address: LID 0000 QPN 0x0109 PSN 0xad9c34 OUT 0x10 RKey 0x00413c "
                      "VAddr 0x007f93aab9e000\n"),
            std::string::npos);
  const std::string send = format_banner(parse({"send_lat"}), reference_info());
  EXPECT_NE(send.find(" Max inline data : 236[B]\n"), std::string::npos);
  EXPECT_NE(send.find(" remote address: LID 0000 QPN 0x010a PSN 0xd5981f\n"), std::string::npos);
}

TEST(PerfFormat, NoticesPerftestPrintsBeforeTheBanner) {
  const std::string large =
      format_banner(parse({"write_bw", "-Q", "10", "-n", "20001"}), reference_info());
  EXPECT_EQ(large.substr(0, large.find("                    RDMA_Write")),
            std::string(kDashes) +
                "Warning: Large message requested and CQ moderation enabled\n"
                "Warning: It can lead to inaccurate results\n"
                " WARNING: BW peak won't be measured in this run.\n" +
                kDashes);
  const std::string mtu = format_banner(parse({"write_lat", "-m", "4096"}), reference_info());
  EXPECT_EQ(mtu.substr(0, mtu.find(kDashes)),
            "Disabling dynamic polling\n"
            "Requested mtu is higher than active mtu \n"
            "Changing to active mtu - 3\n");
  EXPECT_NE(mtu.find(" Mtu             : 1024[B]\n"), std::string::npos);
  const std::string intense = format_banner(parse({"read_bw", "-q", "2049"}), reference_info());
  EXPECT_EQ(intense.substr(0, intense.find(kDashes)),
            "Disabling dynamic polling\nIncreasing CQE polling batch to 64\n");
  EXPECT_NE(intense.find(" CQE Poll Batch  : 64\n"), std::string::npos);
}

TEST(PerfJson, LatencyDocument) {
  const PerfOptions options = parse({"write_lat", "-n", "5"});
  const LatencyRow row{2, 5, 1.0, 2.5, 1.1, 1.2, 0.1, 2.5, 2.5};
  const nlohmann::json config = {{"link", {{"gbps", 100}}}};
  const nlohmann::json doc = perf_json(options, config, std::vector<LatencyRow>{row});
  EXPECT_EQ(doc["test"], "write_lat");
  EXPECT_EQ(doc["config"], config);
  EXPECT_EQ(doc["options"], nlohmann::json({{"iterations", 5},
                                            {"qps", 1},
                                            {"tx_depth", 1},
                                            {"rx_depth", 1},
                                            {"mtu", 0},
                                            {"inline_size", 220},
                                            {"cq_moderation", 1},
                                            {"qp_timeout", 14},
                                            {"report_gbits", false}}));
  EXPECT_EQ(doc["results"], nlohmann::json::parse(R"([{"bytes": 2, "iterations": 5,
      "t_min_usec": 1.0, "t_max_usec": 2.5, "t_typical_usec": 1.1, "t_avg_usec": 1.2,
      "t_stdev_usec": 0.1, "p99_usec": 2.5, "p99_9_usec": 2.5}])"));
  EXPECT_EQ(doc.size(), 4u);
}

TEST(PerfJson, BwDocumentReportsGbitsWhateverTheTableUnit) {
  const EightWrites run;
  const BwRow row = bw_row(4096, run.posted, run.completed, run.options);
  const nlohmann::json doc =
      perf_json(parse({"atomic_bw"}), nlohmann::json::object(), std::vector<BwRow>{row, row});
  EXPECT_EQ(doc["test"], "atomic_bw");
  EXPECT_EQ(doc["options"]["atomic_type"], "FETCH_AND_ADD");
  ASSERT_EQ(doc["results"].size(), 2u);
  EXPECT_EQ(doc["results"][0], nlohmann::json::parse(R"({"bytes": 4096, "iterations": 8,
      "bw_peak_gbps": 131.072, "bw_avg_gbps": 128.0, "msg_rate_mpps": 3.90625})"));
}

}  // namespace
}  // namespace rnicsim::perf
