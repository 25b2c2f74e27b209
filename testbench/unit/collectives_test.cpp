// The collectives experiment's kernel-free parts: the section's checks (the
// key and reason of each refusal), `rnicsim coll`'s command line, the
// algorithm each size takes, the pairs of ranks each algorithm joins, the
// memory a rank needs, and the busbw factors.
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>

#include "config/config.hpp"
#include "config/run_config.hpp"
#include "program/experiments/collectives/coll_options.hpp"
#include "program/experiments/collectives/collective_algorithms.hpp"
#include "program/experiments/collectives/collectives_config.hpp"
#include "program/experiments/collectives/collectives_report.hpp"
#include "system/rc_bench.hpp"
#include "system/topology.hpp"

namespace rnicsim {
namespace {

// A star of `hosts` with the collectives section `section` (JSON members).
std::string star(int hosts, const std::string& section) {
  return R"({"experiment": "collectives", "topology": {"preset": "star", "hosts": )" +
         std::to_string(hosts) + R"(}, "collectives": {)" + section + "}}";
}

CollectivesConfig read(const std::string& json) {
  config::RunConfig run(testing::loaded_config(config::Json::parse(json)));
  return collectives_config(run, topology_config(run));
}

std::string error_of(const std::string& json) {
  try {
    read(json);
  } catch (const config::ConfigError& e) {
    return e.key() + ": " + e.reason();
  }
  return "no error";
}

TEST(CollectivesConfig, SizesDoubleFromMinToMaxAndEndAtMax) {
  const CollectivesConfig c = read(star(4, R"("min_bytes": 12, "max_bytes": 100)"));
  EXPECT_EQ(c.sizes, (std::vector<std::uint64_t>{12, 24, 48, 96, 100}));
  EXPECT_EQ(c.ranks, 4u);  // 0: every node
}

TEST(CollectivesConfig, AutoTakesRecursiveDoublingBelowShortBytesAndRingFromIt) {
  const CollectivesConfig c = read(star(4, R"("short_bytes": 2048)"));
  EXPECT_EQ(read(star(4, "")).short_bytes, 65536u);  // the default
  EXPECT_EQ(c.algorithm_for(2044), CollectiveAlgorithm::kRecursiveDoubling);
  EXPECT_EQ(c.algorithm_for(2048), CollectiveAlgorithm::kRing);
  const CollectivesConfig b = read(star(4, R"("test": "bcast")"));
  EXPECT_EQ(b.algorithm_for(4), CollectiveAlgorithm::kBinomial);
  EXPECT_EQ(b.algorithm_for(1 << 20), CollectiveAlgorithm::kChain);
  const CollectivesConfig forced = read(star(4, R"("algorithm": "ring")"));
  EXPECT_EQ(forced.algorithm_for(4), CollectiveAlgorithm::kRing);
}

TEST(CollectivesConfig, WarmupIsOsusSkipUpTo8KAndSkipLargeAbove) {
  const CollectivesConfig c = read(star(2, R"("warmup": 7, "warmup_large": 3)"));
  EXPECT_EQ(c.warmup_for(8192), 7u);
  EXPECT_EQ(c.warmup_for(8196), 3u);
}

TEST(CollectivesConfig, RefusalsNameTheKeyAndTheReason) {
  EXPECT_EQ(error_of(star(8, R"("ranks": 9)")),
            "collectives.ranks: 9 ranks, but the topology has 8 nodes (one rank a node)");
  EXPECT_EQ(error_of(star(8, R"("min_bytes": 6)")),
            "collectives.min_bytes: 6 bytes is not a whole number of int32 elements (4 bytes "
            "each)");
  EXPECT_EQ(error_of(star(8, R"("algorithm": "chain")")),
            "collectives.algorithm: \"chain\" is not an algorithm of allreduce (allreduce: ring, "
            "recursive_doubling; bcast: binomial, chain; the others: auto)");
  EXPECT_EQ(error_of(star(8, R"("test": "latency", "ranks": 3)")),
            "collectives.ranks: latency runs on 2 ranks (OSU's), not 3");
  EXPECT_EQ(error_of(star(8, R"("test": "mbw_mr", "ranks": 3)")),
            "collectives.ranks: mbw_mr pairs rank i with i + N/2: an even number of ranks, not 3");
  EXPECT_EQ(error_of(star(8, R"("test": "bw", "ranks": 2, "format": "nccl")")),
            "collectives.format: nccl-tests' columns are for the collectives, not bw");
  EXPECT_EQ(error_of(star(8, R"("min_bytes": 64, "max_bytes": 32)")),
            "collectives.min_bytes: 64 is above collectives.max_bytes (32)");
  // A point-to-point size needs no whole element.
  EXPECT_EQ(error_of(star(8, R"("test": "bw", "ranks": 2, "min_bytes": 1)")), "no error");
  // 64 MiB in place on 8 ranks fits the budget; on 16 it does not.
  EXPECT_EQ(error_of(star(8, R"("min_bytes": 67108864, "max_bytes": 67108864)")), "no error");
  const std::string over = error_of(star(16, R"("min_bytes": 67108864, "max_bytes": 67108864)"));
  EXPECT_NE(over.find("collectives.max_bytes: the ranks' buffers (1217 MiB for 16 ranks)"),
            std::string::npos)
      << over;
  EXPECT_NE(over.find("over the run's budget of 768 MiB (collectives.memory_budget_bytes)"),
            std::string::npos)
      << over;
  // A machine with the memory raises the budget (2 GiB): 1217 MiB of
  // buffers, 16 nodes and the simulator fit.
  EXPECT_EQ(error_of(star(16, R"("min_bytes": 67108864, "max_bytes": 67108864,
                                 "memory_budget_bytes": 2147483648)")),
            "no error");
  // Back to back, a test runs on the cable's two ends.
  EXPECT_EQ(error_of(R"({"experiment": "collectives", "collectives": {"ranks": 2}})"), "no error");
}

TEST(CollectivesConfig, RankMemoryIsTheBufferAndItsScratch) {
  const CollectivesConfig ring = read(star(8, R"("max_bytes": 67108864, "short_bytes": 2048)"));
  // In place, with three blocks of scratch above 4 MiB: 64 + 3 x 8 MiB.
  EXPECT_EQ(rank_buffer_bytes(ring, 64 << 20), (64u << 20) + 3 * (8u << 20));
  // Up to 4 MiB, a block per summing step (N - 1 = 7).
  EXPECT_EQ(rank_buffer_bytes(ring, 4 << 20), (4u << 20) + 7 * (512u << 10));
  // Recursive doubling: the buffer, one slot per exchange and the pre-step, eager copies.
  EXPECT_EQ(recursive_doubling_exchanges(8), 3u);
  EXPECT_EQ(recursive_doubling_exchanges(12), 3u);
  EXPECT_EQ(rank_buffer_bytes(ring, 1024), 1024u + (2 * 3 + 1) * 1024u);  // below short_bytes
  const CollectivesConfig gather = read(star(8, R"("test": "allgather")"));
  EXPECT_EQ(rank_buffer_bytes(gather, 4096), 4096u + 8 * 4096u);
  const CollectivesConfig all = read(star(8, R"("test": "alltoall")"));
  EXPECT_EQ(rank_buffer_bytes(all, 4096), 2 * 8 * 4096u);
}

TEST(CollectivesConfig, EagerDepthCoversWhatAPeerSendsInOneOperation) {
  // A ring: 2(N-1) messages from the previous rank, each at most one segment.
  EXPECT_EQ(eager_depth(read(star(8, ""))), 14u);
  // bw: a window and the answer.
  EXPECT_EQ(eager_depth(read(star(2, R"("test": "bw", "window": 64)"))), 65u);
  EXPECT_EQ(eager_depth(read(star(8, R"("test": "alltoall")"))), 1u);
}

std::set<std::pair<std::size_t, std::size_t>> pairs_of(const std::string& json) {
  const std::vector<std::pair<std::size_t, std::size_t>> p = CollectiveRank::pairs(read(json));
  return {p.begin(), p.end()};
}

TEST(CollectiveRank, PairsAreThoseTheAlgorithmsExchangeOn) {
  using Pairs = std::set<std::pair<std::size_t, std::size_t>>;
  // A ring of 4.
  EXPECT_EQ(pairs_of(star(4, R"("algorithm": "ring")")), (Pairs{{0, 1}, {1, 2}, {2, 3}, {0, 3}}));
  // Recursive doubling on 6: p = 4, q = 2; 0-1 and 2-3 pair up first, then
  // the active ranks 1, 3, 4, 5 exchange at distance 1 and 2 of their numbers.
  EXPECT_EQ(pairs_of(star(6, R"("algorithm": "recursive_doubling")")),
            (Pairs{{0, 1}, {2, 3}, {1, 3}, {4, 5}, {1, 4}, {3, 5}}));
  // A binomial tree of 8 from rank 0: r receives from r less its lowest set bit.
  EXPECT_EQ(pairs_of(star(8, R"("test": "bcast", "algorithm": "binomial")")),
            (Pairs{{0, 1}, {0, 2}, {2, 3}, {0, 4}, {4, 5}, {4, 6}, {6, 7}}));
  EXPECT_EQ(pairs_of(star(3, R"("test": "alltoall")")), (Pairs{{0, 1}, {0, 2}, {1, 2}}));
  EXPECT_EQ(pairs_of(star(4, R"("test": "mbw_mr")")), (Pairs{{0, 2}, {1, 3}}));
}

TEST(CollectivesReport, BusbwFactorsAreNcclTests) {
  std::ostringstream out;
  const CollectivesConfig allreduce = read(star(8, ""));
  EXPECT_DOUBLE_EQ(CollectivesReport(allreduce, out).bus_factor(), 2.0 * 7 / 8);
  const CollectivesConfig gather = read(star(8, R"("test": "allgather")"));
  EXPECT_DOUBLE_EQ(CollectivesReport(gather, out).bus_factor(), 7.0 / 8);
  EXPECT_EQ(CollectivesReport(gather, out).nccl_bytes(1024), 8u * 1024);
  const CollectivesConfig bcast = read(star(8, R"("test": "bcast")"));
  EXPECT_DOUBLE_EQ(CollectivesReport(bcast, out).bus_factor(), 1.0);
}

TEST(CollectivesReport, OsuTableIsOsuUtilsWidths) {
  std::ostringstream out;
  const CollectivesConfig c = read(star(8, R"("min_bytes": 4, "max_bytes": 4)"));
  CollectivesReport report(c, out);
  report.print_header();
  CollectivesRow row;
  row.bytes = 4;
  row.mean_ns = {1500, 2500};  // two operations: 2 us on average
  row.most_ns = {2000, 3000};
  row.rank0_ns = {1000, 1000};
  report.add(row);
  EXPECT_EQ(out.str(),
            "# OSU MPI Allreduce Latency Test v7.4\n"
            "# Size       Avg Latency(us)\n"
            "4                       2.00\n");
}

TEST(CollOptions, OptionsBecomeSetsThatRememberTheOption) {
  const coll::CollOptions o = coll::parse_coll_options(
      {"allreduce", "x.json", "-np", "8", "-m", "4:64M", "-x", "3", "--nccl", "--json", "r.json"});
  EXPECT_EQ(o.config_path, "x.json");
  EXPECT_EQ(o.json_path, "r.json");
  EXPECT_EQ(o.sets,
            (std::vector<std::string>{"collectives.test=allreduce", "collectives.ranks=8",
                                      "collectives.min_bytes=4", "collectives.max_bytes=67108864",
                                      "collectives.warmup=3", "collectives.warmup_large=3",
                                      "collectives.format=nccl"}));
  EXPECT_EQ(o.option_of.at("collectives.ranks=8"), "-np 8");
  EXPECT_EQ(o.option_of.at("collectives.max_bytes=67108864"), "-m 4:64M");
}

TEST(CollOptions, BadCommandLinesNameTheOption) {
  const auto error = [](const std::vector<std::string>& args) {
    try {
      coll::parse_coll_options(args);
    } catch (const config::ConfigError& e) {
      return e.source() + ": " + e.reason();
    }
    return std::string("no error");
  };
  EXPECT_EQ(error({"allreduce", "-m", "4:lots"}),
            "-m 4:lots: \"lots\" is not a byte count (digits, K, M or G)");
  EXPECT_EQ(error({"allreduce", "--frobnicate"}),
            "--frobnicate: unknown option (rnicsim coll --help)");
  EXPECT_EQ(error({"allsum"}),
            "allsum: unknown test: allreduce, allgather, reduce_scatter, bcast, alltoall, "
            "latency, bw, bibw, mbw_mr");
  EXPECT_EQ(error({"allreduce", "-np"}), "-np: needs a value");
}

}  // namespace
}  // namespace rnicsim
