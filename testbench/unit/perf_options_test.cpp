// `rnicsim perf`'s command line: perftest's defaults and dependencies per
// test, the option spellings it accepts, and one clear error per bad option.
#include "program/experiments/perf/perf_options.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "config_error_of.hpp"

namespace rnicsim::perf {
namespace {

using config::config_error_of;

PerfOptions parse(std::vector<std::string> args) { return parse_perf_options(args); }

std::string error_of(std::vector<std::string> args) {
  return config_error_of([&] { parse_perf_options(args); });
}

struct Defaults {
  const char* test;
  std::uint64_t iterations;
  std::uint64_t size;
  std::uint32_t tx_depth;
  std::uint32_t rx_depth;
  std::uint32_t inline_size;
  std::uint32_t cq_moderation;
};

// perftest_parameters.h and force_dependecies: iterations 5000 for write_bw,
// else 1000; 65536 B in BW tests, 2 B in latency tests, 8 B for atomics; TX
// depth 128 / 1; 512 receives for send; inline 220 (write) and 236 (send) in
// latency tests only; CQ moderation 100, but 1 above 8 KiB and in latency tests.
TEST(PerfOptions, DefaultsPerTestArePerftests) {
  const Defaults expected[] = {
      {"write_lat", 1000, 2, 1, 1, 220, 1},  {"write_bw", 5000, 65536, 128, 1, 0, 1},
      {"read_lat", 1000, 2, 1, 1, 0, 1},     {"read_bw", 1000, 65536, 128, 1, 0, 1},
      {"send_lat", 1000, 2, 1, 512, 236, 1}, {"send_bw", 1000, 65536, 128, 512, 0, 1},
      {"atomic_lat", 1000, 8, 1, 1, 0, 1},   {"atomic_bw", 1000, 8, 128, 1, 0, 100},
  };
  for (const Defaults& d : expected) {
    SCOPED_TRACE(d.test);
    const PerfOptions options = parse({d.test});
    EXPECT_EQ(test_name(options.test), d.test);
    EXPECT_EQ(options.iterations, d.iterations);
    EXPECT_EQ(options.sizes, std::vector<std::uint64_t>{d.size});
    EXPECT_EQ(options.tx_depth, d.tx_depth);
    EXPECT_EQ(options.rx_depth, d.rx_depth);
    EXPECT_EQ(options.inline_size, d.inline_size);
    EXPECT_EQ(options.cq_moderation, d.cq_moderation);
    EXPECT_EQ(options.qps, 1u);
    EXPECT_EQ(options.mtu, 0u);
    EXPECT_EQ(options.atomic_type, AtomicType::kFetchAndAdd);
    EXPECT_FALSE(options.report_gbits);
    EXPECT_FALSE(options.help);
  }
}

TEST(PerfOptions, TheIbPrefixNamesTheSameTest) {
  EXPECT_EQ(parse({"ib_send_bw"}).test, PerfTest::kSendBw);
  EXPECT_EQ(parse({"ib_atomic_lat"}).test, PerfTest::kAtomicLat);
}

TEST(PerfOptions, VerbsAndLatencyDirection) {
  EXPECT_TRUE(parse({"write_lat"}).is_latency());
  EXPECT_TRUE(parse({"read_bw"}).is_bw());
  EXPECT_TRUE(parse({"read_bw"}).is_read());
  EXPECT_TRUE(parse({"send_lat"}).is_send());
  EXPECT_TRUE(parse({"atomic_bw"}).is_atomic());
  EXPECT_EQ(rtt_factor(PerfTest::kWriteLat), 2u);
  EXPECT_EQ(rtt_factor(PerfTest::kSendLat), 2u);
  EXPECT_EQ(rtt_factor(PerfTest::kReadLat), 1u);
  EXPECT_EQ(rtt_factor(PerfTest::kAtomicLat), 1u);
  EXPECT_EQ(verb_title(PerfTest::kWriteBw), "RDMA_Write");
  EXPECT_EQ(verb_title(PerfTest::kReadLat), "RDMA_Read");
  EXPECT_EQ(verb_title(PerfTest::kSendBw), "Send");
  EXPECT_EQ(verb_title(PerfTest::kAtomicBw), "Atomic");
}

TEST(PerfOptions, AllRunsEveryPowerOfTwoFrom2BTo8MiB) {
  const PerfOptions options = parse({"write_bw", "-a"});
  ASSERT_EQ(options.sizes.size(), 23u);
  EXPECT_EQ(options.sizes.front(), 2u);
  EXPECT_EQ(options.sizes[9], 1024u);
  EXPECT_EQ(options.sizes.back(), 8388608u);
  EXPECT_TRUE(options.all_sizes);
  // -a keeps CQ moderation on: one setting serves every size.
  EXPECT_EQ(options.cq_moderation, 100u);
}

TEST(PerfOptions, SizeTakesPerftestsSuffixesAndHex) {
  EXPECT_EQ(parse({"write_bw", "-s", "64K"}).sizes, std::vector<std::uint64_t>{65536});
  EXPECT_EQ(parse({"write_bw", "-s", "1M"}).sizes, std::vector<std::uint64_t>{1048576});
  EXPECT_EQ(parse({"write_bw", "-s", "0x40"}).sizes, std::vector<std::uint64_t>{64});
  EXPECT_EQ(parse({"write_bw", "--size=128"}).sizes, std::vector<std::uint64_t>{128});
  EXPECT_EQ(parse({"write_bw", "--size", "256"}).sizes, std::vector<std::uint64_t>{256});
  EXPECT_EQ(parse({"write_bw", "-s512"}).sizes, std::vector<std::uint64_t>{512});
  EXPECT_EQ(parse({"write_bw", "-s", "2047M"}).sizes, std::vector<std::uint64_t>{2146435072});
}

TEST(PerfOptions, QpTimeoutIsPerftestsDashUFrom0To31) {
  EXPECT_EQ(parse({"write_bw"}).qp_timeout, 14u);
  EXPECT_EQ(parse({"write_bw", "-u", "8"}).qp_timeout, 8u);
  EXPECT_EQ(parse({"write_lat", "--qp-timeout=0"}).qp_timeout, 0u);
  EXPECT_EQ(parse({"write_lat", "--qp-timeout=31"}).qp_timeout, 31u);
  EXPECT_THROW(parse({"write_bw", "-u", "32"}), config::ConfigError);
}

TEST(PerfOptions, CqModerationFollowsSizeRequestAndTxDepth) {
  EXPECT_EQ(parse({"write_bw", "-s", "8192"}).cq_moderation, 100u);
  EXPECT_EQ(parse({"write_bw", "-s", "8193"}).cq_moderation, 1u);
  const PerfOptions asked = parse({"write_bw", "-Q", "10"});
  EXPECT_EQ(asked.cq_moderation, 10u);
  EXPECT_EQ(asked.cq_moderation_given, 10u);
  EXPECT_EQ(parse({"write_bw", "-s", "64", "-Q", "200", "-t", "100"}).cq_moderation, 100u);
  EXPECT_EQ(parse({"write_bw", "-s", "64", "-t", "16"}).cq_moderation, 16u);
}

TEST(PerfOptions, DepthsAreClippedToTheIterations) {
  const PerfOptions bw = parse({"write_bw", "-n", "50"});
  EXPECT_EQ(bw.tx_depth, 50u);
  // Send: receives no deeper than the run, made even (perftest's workaround).
  EXPECT_EQ(parse({"send_bw", "-n", "7"}).rx_depth, 8u);
  EXPECT_EQ(parse({"send_bw", "-n", "7", "-a"}).rx_depth, 7u);
  EXPECT_EQ(parse({"send_lat", "-r", "33"}).rx_depth, 34u);
  EXPECT_EQ(parse({"send_bw", "-r", "64"}).rx_depth, 64u);
  EXPECT_EQ(parse({"write_lat", "-r", "1"}).rx_depth, 1u);
}

TEST(PerfOptions, InlineOnlyWhereGivenOrInLatencyTests) {
  EXPECT_EQ(parse({"write_bw", "-I", "64"}).inline_size, 64u);
  EXPECT_EQ(parse({"write_lat", "-I", "0"}).inline_size, 0u);
  EXPECT_EQ(parse({"send_lat", "--inline_size=100"}).inline_size, 100u);
  const PerfOptions lat = parse({"write_lat"});
  EXPECT_TRUE(lat.sends_inline(220));
  EXPECT_FALSE(lat.sends_inline(221));
  EXPECT_FALSE(parse({"write_bw"}).sends_inline(2));
}

TEST(PerfOptions, EveryOtherOption) {
  const PerfOptions options = parse({"atomic_bw",
                                     "configs/x.json",
                                     "-A",
                                     "CMP_AND_SWAP",
                                     "-n",
                                     "20001",
                                     "-q",
                                     "4",
                                     "-t",
                                     "64",
                                     "-m",
                                     "4096",
                                     "-s",
                                     "8",
                                     "--report_gbits",
                                     "--json",
                                     "r.json",
                                     "--pcap",
                                     "w.pcap",
                                     "--breakdown",
                                     "--out",
                                     "runs/a",
                                     "--set",
                                     "link.gbps=50",
                                     "--set",
                                     "nic.x=1"});
  EXPECT_EQ(options.config_path, "configs/x.json");
  EXPECT_EQ(options.atomic_type, AtomicType::kCmpAndSwap);
  EXPECT_EQ(atomic_type_name(options.atomic_type), "CMP_AND_SWAP");
  EXPECT_EQ(options.iterations, 20001u);
  EXPECT_EQ(options.qps, 4u);
  EXPECT_EQ(options.total_messages(), 80004u);
  EXPECT_EQ(options.tx_depth, 64u);
  EXPECT_EQ(options.cq_moderation, 64u);
  EXPECT_EQ(options.mtu, 4096u);
  EXPECT_EQ(options.sizes, std::vector<std::uint64_t>{8});
  EXPECT_TRUE(options.report_gbits);
  EXPECT_EQ(options.json_path, "r.json");
  EXPECT_EQ(options.pcap_path, "w.pcap");
  EXPECT_TRUE(options.breakdown);
  EXPECT_EQ(options.out_dir, "runs/a");
  EXPECT_EQ(options.sets, (std::vector<std::string>{"link.gbps=50", "nic.x=1"}));
  EXPECT_FALSE(options.measures_peak());
  EXPECT_TRUE(parse({"write_bw", "-n", "20000"}).measures_peak());
  EXPECT_FALSE(parse({"write_lat"}).measures_peak());
}

TEST(PerfOptions, CqePollingIsDynamicInLongBwRunsOnly) {
  EXPECT_TRUE(parse({"write_bw"}).dynamic_cqe_poll());
  EXPECT_FALSE(parse({"write_bw", "-n", "2999"}).dynamic_cqe_poll());
  EXPECT_FALSE(parse({"write_lat", "-n", "5000"}).dynamic_cqe_poll());
  EXPECT_EQ(parse({"read_bw"}).cqe_poll_batch(), 16u);
  EXPECT_EQ(parse({"read_bw", "-q", "2049"}).cqe_poll_batch(), 64u);
  EXPECT_EQ(parse({"read_bw", "-q", "2049", "-s", "8192"}).cqe_poll_batch(), 16u);
}

TEST(PerfOptions, HelpStopsReadingAtOnce) {
  EXPECT_TRUE(parse({"-h"}).help);
  EXPECT_TRUE(parse({"write_lat", "--help", "--bogus"}).help);
  EXPECT_FALSE(perf_usage().empty());
  EXPECT_EQ(perf_usage().rfind("usage: rnicsim perf TEST [CONFIG]", 0), 0u);
}

TEST(PerfOptions, AtomicTestsRefuseOtherSizesAsPerftestDoes) {
  EXPECT_EQ(error_of({"atomic_lat", "-s", "64"}), "-s 64: atomic tests run 8-byte messages only");
  EXPECT_EQ(error_of({"atomic_bw", "-a"}), "-a: atomic tests run 8-byte messages only");
  EXPECT_EQ(parse({"atomic_lat", "-s", "8"}).sizes, std::vector<std::uint64_t>{8});
}

TEST(PerfOptions, BadValuesNameTheOptionAndTheReason) {
  EXPECT_EQ(error_of({"write_lat", "-m", "300"}),
            "-m 300: must be one of 256, 512, 1024, 2048, 4096");
  EXPECT_EQ(error_of({"write_lat", "--mtu=1500"}),
            "--mtu=1500: must be one of 256, 512, 1024, 2048, 4096");
  EXPECT_EQ(error_of({"write_lat", "-n", "3"}),
            "-n 3: must be a whole number from 5 to 4294967296");
  EXPECT_EQ(error_of({"write_lat", "-n", "010"}),
            "-n 010: must be a whole number from 5 to 4294967296");
  EXPECT_EQ(error_of({"write_bw", "-t", "0"}), "-t 0: must be a whole number from 1 to 15000");
  EXPECT_EQ(error_of({"write_bw", "-Q", "2000"}), "-Q 2000: must be a whole number from 1 to 1024");
  EXPECT_EQ(error_of({"write_bw", "-I", "2000"}), "-I 2000: must be a whole number from 0 to 1024");
  EXPECT_EQ(error_of({"write_bw", "-q", "-1"}), "-q -1: must be a whole number from 1 to 131072");
  EXPECT_EQ(error_of({"write_bw", "-q", "131073"}),
            "-q 131073: must be a whole number from 1 to 131072");
  EXPECT_EQ(parse({"write_bw", "-q", "100000"}).qps, 100000u);
  const std::string size_reason =
      ": must be a message size from 1 to 2147483647 bytes (K and M suffixes allowed)";
  EXPECT_EQ(error_of({"write_bw", "-s", "abc"}), "-s abc" + size_reason);
  EXPECT_EQ(error_of({"write_bw", "-s", "0"}), "-s 0" + size_reason);
  EXPECT_EQ(error_of({"write_bw", "-s", "2048M"}), "-s 2048M" + size_reason);
  EXPECT_EQ(error_of({"atomic_bw", "-A", "SWAP"}),
            "-A SWAP: must be CMP_AND_SWAP or FETCH_AND_ADD");
  EXPECT_EQ(error_of({"write_bw", "--json", ""}),
            "--json \"\": is empty: give the file to write the results into");
  EXPECT_EQ(error_of({"write_bw", "--out="}),
            "--out \"\": is empty: give the folder to write results into");
}

TEST(PerfOptions, OptionsThatDoNotApplyToTheTestAreRefused) {
  EXPECT_EQ(error_of({"write_lat", "-q", "2"}),
            "-q 2: more than one QP runs only in the bandwidth tests");
  EXPECT_EQ(error_of({"read_bw", "-I", "64"}),
            "-I 64: inline data is not available on READ and atomic verbs");
  EXPECT_EQ(error_of({"write_bw", "-A", "CMP_AND_SWAP"}),
            "-A CMP_AND_SWAP: only the atomic tests take an atomic type");
  EXPECT_EQ(error_of({"write_lat", "-Q", "10"}),
            "-Q 10: CQ moderation applies to the bandwidth tests only");
  EXPECT_EQ(error_of({"read_lat", "-r", "4"}),
            "-r 4: only the send tests post receives; RDMA verbs take an rx depth of 1");
  EXPECT_EQ(error_of({"write_bw", "-a", "-s", "64"}),
            "-a: runs every size from 2 to 8388608 bytes; give -s or -a, not both");
}

TEST(PerfOptions, CommandLineMistakes) {
  EXPECT_EQ(error_of({"write_lat", "--fast"}), "--fast: unknown option (see rnicsim perf --help)");
  EXPECT_EQ(error_of({"write_lat", "-b"}),
            "-b: a perftest option rnicsim perf does not support (see rnicsim perf --help)");
  EXPECT_EQ(error_of({"write_lat", "-s"}), "-s: needs a value");
  EXPECT_EQ(error_of({"write_lat", "-s", "-a"}), "-s: needs a value");
  EXPECT_EQ(error_of({"write_lat", "--set"}), "--set: needs a value");
  EXPECT_EQ(error_of({"write_lat", "--report_gbits=1"}), "--report_gbits=1: takes no value");
  EXPECT_EQ(error_of({"write_bw", "-s", "64", "-s", "128"}),
            "-s 128: given twice (first as -s 64)");
  EXPECT_EQ(error_of({"write_bw", "-n", "10", "--iters=20"}),
            "--iters=20: given twice (first as -n 10)");
  EXPECT_EQ(error_of({}),
            "perf: needs a TEST (one of write_lat, write_bw, read_lat, read_bw, send_lat, "
            "send_bw, atomic_lat, atomic_bw, tcp_lat, tcp_bw)");
  EXPECT_EQ(error_of({"frob"}),
            "frob: unknown test (one of write_lat, write_bw, read_lat, read_bw, send_lat, "
            "send_bw, atomic_lat, atomic_bw, tcp_lat, tcp_bw; ib_ prefix accepted)");
  // The TCP tests refuse the verbs' options.
  for (const char* option : {"-q", "-t", "-r", "-m", "-I", "-Q", "-u"}) {
    EXPECT_EQ(error_of({"tcp_bw", option, "2"}),
              std::string(option) + " 2: an RDMA option: the tcp tests run one kernel TCP "
                                    "connection (its settings are the config's kernel.* keys)");
  }
  // --breakdown is not a verbs option: tcp_lat follows its message through the kernel.
  EXPECT_TRUE(parse({"tcp_lat", "--breakdown"}).breakdown);
  EXPECT_EQ(error_of({"write_lat", "a.json", "b.json"}),
            "b.json: more than one CONFIG given (a.json before it)");
}

TEST(PerfOptions, EffectiveMtuIsNeverAboveTheActiveOne) {
  EXPECT_EQ(effective_mtu(parse({"write_lat"}), 1024), 1024u);
  EXPECT_EQ(effective_mtu(parse({"write_lat", "-m", "512"}), 1024), 512u);
  EXPECT_EQ(effective_mtu(parse({"write_lat", "-m", "4096"}), 1024), 1024u);
}

// --threads is rnicsim's own: client threads in the RDMA BW tests, 1 to 64,
// at most -q, 1 by default.
TEST(PerfOptions, ThreadsRunTheBandwidthTestsOnUpToOneThreadPerQp) {
  EXPECT_EQ(parse({"write_bw"}).threads, 1u);
  EXPECT_EQ(parse({"write_bw", "-q", "64", "--threads", "8"}).threads, 8u);
  EXPECT_EQ(parse({"--threads=4", "send_bw", "-q", "4"}).threads, 4u);
  EXPECT_EQ(parse({"read_bw", "-q", "64", "--threads", "64"}).threads, 64u);
  EXPECT_EQ(parse({"atomic_bw", "-q", "2", "--threads", "2"}).threads, 2u);
  EXPECT_EQ(error_of({"write_bw", "-q", "4", "--threads", "8"}),
            "--threads 8: more threads than QPs (4): each thread drives QPs of its own; raise -q");
  EXPECT_EQ(error_of({"write_bw", "--threads", "2"}),
            "--threads 2: more threads than QPs (1): each thread drives QPs of its own; raise -q");
  EXPECT_EQ(error_of({"write_bw", "-q", "128", "--threads", "65"}),
            "--threads 65: must be a whole number from 1 to 64");
  EXPECT_EQ(error_of({"write_bw", "--threads", "0"}),
            "--threads 0: must be a whole number from 1 to 64");
  const std::string latency =
      ": application threads run only in the RDMA bandwidth tests (write_bw, read_bw, send_bw, "
      "atomic_bw)";
  EXPECT_EQ(error_of({"write_lat", "--threads", "2"}), "--threads 2" + latency);
  EXPECT_EQ(error_of({"read_lat", "--threads=1"}), "--threads=1" + latency);
  EXPECT_EQ(error_of({"tcp_bw", "--threads", "2"}), "--threads 2" + latency);
}

// --warmup is rnicsim's own: messages per QP before each size, not measured,
// in the RDMA BW tests; 0 (none) by default.
TEST(PerfOptions, WarmupRunsInTheBandwidthTestsOnly) {
  EXPECT_EQ(parse({"write_bw"}).warmup, 0u);
  EXPECT_EQ(parse({"write_bw", "--warmup", "16"}).warmup, 16u);
  EXPECT_EQ(parse({"--warmup=600", "send_bw", "-q", "4"}).warmup, 600u);
  EXPECT_EQ(parse({"read_bw", "--warmup", "0"}).warmup, 0u);
  EXPECT_EQ(
      error_of({"write_bw", "--warmup", "-1"}).rfind("--warmup -1: must be a whole number", 0), 0u);
  const std::string latency =
      ": a warm-up runs only in the RDMA bandwidth tests (write_bw, read_bw, send_bw, atomic_bw)";
  EXPECT_EQ(error_of({"write_lat", "--warmup", "2"}), "--warmup 2" + latency);
  EXPECT_EQ(error_of({"tcp_bw", "--warmup=2"}), "--warmup=2" + latency);
}

}  // namespace
}  // namespace rnicsim::perf

namespace rnicsim::perf {
namespace {

TEST(PerfOptionsNoPeak, DashNTurnsTheBwPeakOffAsPerftestsNoPeak) {
  EXPECT_TRUE(parse({"write_bw", "-n", "100"}).measures_peak());
  EXPECT_FALSE(parse({"write_bw", "-n", "100", "-N"}).measures_peak());
  EXPECT_FALSE(parse({"write_bw", "--noPeak"}).measures_peak());
  EXPECT_EQ(error_of({"write_bw", "-N", "-N"}), "-N: given twice (first as -N)");
}

}  // namespace
}  // namespace rnicsim::perf
