#include "program/experiments/collectives/collectives_config.hpp"

#include <algorithm>

#include "common/memory_budget.hpp"

namespace rnicsim {
namespace {

constexpr const char* kTests[] = {"allreduce", "allgather", "reduce_scatter", "bcast", "alltoall",
                                  "latency",   "bw",        "bibw",           "mbw_mr"};

// The largest message a size may be: IBTA's 2^31 bytes less one element, as a SEND carries it.
constexpr std::uint64_t kMaxSizeBytes = 1ULL << 30;

}  // namespace

const char* to_string(CollectiveTest test) { return kTests[static_cast<std::size_t>(test)]; }

const char* to_string(CollectiveAlgorithm algorithm) {
  switch (algorithm) {
    case CollectiveAlgorithm::kRing:
      return "ring";
    case CollectiveAlgorithm::kRecursiveDoubling:
      return "recursive_doubling";
    case CollectiveAlgorithm::kBinomial:
      return "binomial";
    case CollectiveAlgorithm::kChain:
      return "chain";
    case CollectiveAlgorithm::kPairwise:
      return "pairwise";
    case CollectiveAlgorithm::kPointToPoint:
      return "point_to_point";
  }
  return "?";
}

const char* to_string(CollectiveTransport transport) {
  return transport == CollectiveTransport::kRdma ? "rdma" : "tcp";
}

CollectiveAlgorithm CollectivesConfig::algorithm_for(std::uint64_t bytes) const {
  const bool short_message = bytes < short_bytes;
  switch (test) {
    case CollectiveTest::kAllreduce:
      if (algorithm == "ring") return CollectiveAlgorithm::kRing;
      if (algorithm == "recursive_doubling") return CollectiveAlgorithm::kRecursiveDoubling;
      return short_message ? CollectiveAlgorithm::kRecursiveDoubling : CollectiveAlgorithm::kRing;
    case CollectiveTest::kAllgather:
    case CollectiveTest::kReduceScatter:
      return CollectiveAlgorithm::kRing;
    case CollectiveTest::kBcast:
      if (algorithm == "binomial") return CollectiveAlgorithm::kBinomial;
      if (algorithm == "chain") return CollectiveAlgorithm::kChain;
      return short_message ? CollectiveAlgorithm::kBinomial : CollectiveAlgorithm::kChain;
    case CollectiveTest::kAlltoall:
      return CollectiveAlgorithm::kPairwise;
    default:
      return CollectiveAlgorithm::kPointToPoint;
  }
}

void declare_collectives_keys(config::Schema& schema) {
  schema.add(config::string_key("collectives.test", "allreduce",
                                "collectives: the test: allreduce, allgather, reduce_scatter, "
                                "bcast, alltoall, or OSU's point-to-point latency, bw, bibw, "
                                "mbw_mr")
                 .one_of({std::begin(kTests), std::end(kTests)}));
  schema.add(config::string_key("collectives.algorithm", "auto",
                                "collectives: allreduce's ring or recursive_doubling, bcast's "
                                "binomial or chain; auto takes the first below "
                                "collectives.short_bytes and the second from it")
                 .one_of({"auto", "ring", "recursive_doubling", "binomial", "chain"}));
  schema.add(config::string_key("collectives.transport", "rdma",
                                "collectives: rdma (an RC QP per pair of ranks an algorithm "
                                "joins, SEND/RECV) or tcp (a kernel TCP connection per pair)")
                 .one_of({"rdma", "tcp"}));
  schema.add(config::integer_key("collectives.ranks", 0, "ranks",
                                 "collectives: one rank on each of the topology's first this "
                                 "many nodes (0: every node)")
                 .at_least(0)
                 .at_most(kMaxTopologyNodes));
  schema.add(config::integer_key("collectives.min_bytes", 4, "bytes",
                                 "collectives: the smallest message size (OSU's -m MIN:); sizes "
                                 "double up to max_bytes")
                 .at_least(1)
                 .at_most(static_cast<double>(kMaxSizeBytes)));
  schema.add(config::integer_key("collectives.max_bytes", 1048576, "bytes",
                                 "collectives: the largest message size (OSU's -m :MAX, 1 MiB by "
                                 "default as OSU's)")
                 .at_least(1)
                 .at_most(static_cast<double>(kMaxSizeBytes)));
  schema.add(config::integer_key("collectives.iterations", 100, "operations",
                                 "collectives: timed operations per size (OSU's -i)")
                 .at_least(1)
                 .at_most(1e7));
  schema.add(config::integer_key("collectives.warmup", 100, "operations",
                                 "collectives: untimed operations before them, for sizes up to "
                                 "8192 bytes (OSU's skip; -x sets both)")
                 .at_least(0)
                 .at_most(1e6));
  schema.add(config::integer_key("collectives.warmup_large", 10, "operations",
                                 "collectives: untimed operations before them, for sizes above "
                                 "8192 bytes (OSU's skip_large)")
                 .at_least(0)
                 .at_most(1e6));
  schema.add(config::integer_key("collectives.segment_bytes", 65536, "bytes",
                                 "collectives: the ring's and the chain's pipelining unit: a "
                                 "block moves as messages of at most this many bytes")
                 .at_least(static_cast<double>(kElementBytes))
                 .at_most(static_cast<double>(kMaxSizeBytes)));
  schema.add(config::integer_key("collectives.short_bytes", 65536, "bytes",
                                 "collectives: auto's threshold: below it allreduce runs "
                                 "recursive doubling and bcast a binomial tree (the two "
                                 "AllReduces cross near 64 KiB on 8 ranks of cx5_100g)")
                 .at_least(0)
                 .at_most(static_cast<double>(kMaxSizeBytes)));
  schema.add(config::number_key("collectives.reduce_gbps", 80, "Gbit/s",
                                "collectives: the host CPU's reduction rate, of one operand "
                                "(a core summing two int32 arrays from memory)")
                 .greater_than(0)
                 .at_most(1e5));
  schema.add(config::integer_key("collectives.step_ns", 0, "ns",
                                 "collectives: the library's CPU cost per message sent or "
                                 "received (its progress engine), on the rank's core")
                 .at_least(0)
                 .at_most(1e9));
  schema.add(config::integer_key("collectives.window", 64, "messages",
                                 "collectives: bw, bibw and mbw_mr: messages per window (OSU's "
                                 "-W)")
                 .at_least(1)
                 .at_most(1024));
  schema.add(config::integer_key("collectives.priority", 3, "",
                                 "collectives: rdma: the QPs' priority (0-7): their DSCP is the "
                                 "first that qos.dscp_classes maps to it")
                 .at_least(0)
                 .at_most(7));
  schema.add(config::string_key("collectives.format", "osu",
                                "collectives: the table printed: osu (OSU micro-benchmarks') or "
                                "nccl (nccl-tests' columns; allreduce, allgather, "
                                "reduce_scatter, bcast, alltoall)")
                 .one_of({"osu", "nccl"}));
  schema.add(config::integer_key("collectives.memory_budget_bytes", kCollectivesMemoryBudgetBytes,
                                 "bytes",
                                 "collectives: the most the run may hold: every rank's buffers "
                                 "(simulated host memory, held byte for byte), the nodes and the "
                                 "simulator; 768 MiB keeps a run well under 1 GiB, raise it on a "
                                 "machine with the memory")
                 .at_least(static_cast<double>(64 * kMiB))
                 .at_most(static_cast<double>(1ULL << 40)));
  schema.add(config::boolean_key("collectives.breakdown", false,
                                 "collectives: print, per size, when each step of rank 0's "
                                 "operation ended (mean over the timed operations)"));
}

CollectivesConfig collectives_config(config::RunConfig& run, const Topology& topology) {
  const config::Section s = run.section("collectives");
  const auto refuse = [&](const std::string& key, const std::string& reason) {
    const std::string path = s.path(key);
    throw config::ConfigError(run.loaded().source_of(path), path, reason);
  };
  CollectivesConfig c;
  const std::string test = s.text("test");
  c.test = static_cast<CollectiveTest>(std::find(std::begin(kTests), std::end(kTests), test) -
                                       std::begin(kTests));
  c.algorithm = s.text("algorithm");
  c.transport =
      s.text("transport") == "tcp" ? CollectiveTransport::kTcp : CollectiveTransport::kRdma;
  const std::size_t nodes = topology.nodes.size();
  const std::uint64_t ranks = s.integer("ranks");
  c.ranks = ranks == 0 ? nodes : static_cast<std::size_t>(ranks);
  if (c.ranks > nodes) {
    refuse("ranks", std::to_string(c.ranks) + " ranks, but the topology has " +
                        std::to_string(nodes) + " nodes (one rank a node)");
  }
  if (c.ranks < 2) refuse("ranks", "a test needs at least 2 ranks");
  if (!topology.switched() && c.ranks > 2) {
    refuse("ranks", "back to back, a test runs on the cable's two nodes");
  }
  const bool two_ranks = c.test == CollectiveTest::kLatency || c.test == CollectiveTest::kBw ||
                         c.test == CollectiveTest::kBibw;
  if (two_ranks && c.ranks != 2) {
    refuse("ranks", std::string(to_string(c.test)) + " runs on 2 ranks (OSU's), not " +
                        std::to_string(c.ranks));
  }
  if (c.test == CollectiveTest::kMbwMr && c.ranks % 2 != 0) {
    refuse("ranks", "mbw_mr pairs rank i with i + N/2: an even number of ranks, not " +
                        std::to_string(c.ranks));
  }
  const bool allreduce_algorithm = c.algorithm == "ring" || c.algorithm == "recursive_doubling";
  const bool bcast_algorithm = c.algorithm == "binomial" || c.algorithm == "chain";
  if ((allreduce_algorithm && c.test != CollectiveTest::kAllreduce) ||
      (bcast_algorithm && c.test != CollectiveTest::kBcast)) {
    refuse("algorithm", "\"" + c.algorithm + "\" is not an algorithm of " + test +
                            " (allreduce: ring, recursive_doubling; bcast: binomial, chain; "
                            "the others: auto)");
  }
  const std::uint64_t min_bytes = s.integer("min_bytes");
  const std::uint64_t max_bytes = s.integer("max_bytes");
  if (min_bytes > max_bytes) {
    refuse("min_bytes", std::to_string(min_bytes) + " is above collectives.max_bytes (" +
                            std::to_string(max_bytes) + ")");
  }
  for (const char* key : {"min_bytes", "max_bytes"}) {
    const std::uint64_t bytes = s.integer(key);
    if (!c.is_point_to_point() && bytes % kElementBytes != 0) {
      refuse(key, std::to_string(bytes) + " bytes is not a whole number of " + kElementType +
                      " elements (" + std::to_string(kElementBytes) + " bytes each)");
    }
  }
  for (std::uint64_t b = min_bytes; b <= max_bytes; b *= 2) c.sizes.push_back(b);
  if (c.sizes.back() != max_bytes) c.sizes.push_back(max_bytes);
  c.iterations = s.integer("iterations");
  c.warmup = s.integer("warmup");
  c.warmup_large = s.integer("warmup_large");
  c.segment_bytes = s.integer("segment_bytes");
  if (c.segment_bytes % kElementBytes != 0) {
    refuse("segment_bytes", std::to_string(c.segment_bytes) +
                                " bytes is not a whole number of elements (4 bytes each)");
  }
  c.short_bytes = s.integer("short_bytes");
  c.reduce_gbps = s.number("reduce_gbps");
  c.step_ns = s.integer("step_ns");
  c.window = s.integer("window");
  c.priority = static_cast<std::uint8_t>(s.integer("priority"));
  c.nccl_format = s.text("format") == "nccl";
  if (c.nccl_format && c.is_point_to_point()) {
    refuse("format", "nccl-tests' columns are for the collectives, not " + test);
  }
  c.breakdown = s.boolean("breakdown");
  // Every rank's buffers, and the nodes themselves (about 1 MiB each,
  // results/bench/README.md), must fit the run's memory budget.
  std::uint64_t buffers = 0;
  for (const std::uint64_t bytes : c.sizes) {
    buffers = std::max(buffers, rank_buffer_bytes(c, bytes) * c.ranks);
  }
  // RDMA's eager bounce buffers: at most every rank's to every other.
  if (c.transport == CollectiveTransport::kRdma) {
    buffers += c.ranks * (c.ranks - 1) * eager_depth(c) * kEagerBytes;
  }
  const std::uint64_t estimate = kSimulatorBaselineBytes + nodes * kMiB + buffers;
  const std::uint64_t budget = s.integer("memory_budget_bytes");
  if (estimate > budget) {
    refuse("max_bytes", "the ranks' buffers (" + std::to_string(buffers / kMiB) + " MiB for " +
                            std::to_string(c.ranks) + " ranks) and " + std::to_string(nodes) +
                            " nodes need about " + std::to_string(estimate / kMiB) +
                            " MiB, over the run's budget of " + std::to_string(budget / kMiB) +
                            " MiB (collectives.memory_budget_bytes): a smaller max_bytes, fewer "
                            "ranks or a larger budget");
  }
  return c;
}

std::uint32_t eager_depth(const CollectivesConfig& c) {
  // Messages of an operation of `bytes` cut in segments: how many are eager.
  const auto eager_segments = [&c](std::uint64_t bytes) -> std::uint64_t {
    if (bytes > kEagerBytes && c.segment_bytes > kEagerBytes) return 0;
    return std::max<std::uint64_t>(1, (bytes + c.segment_bytes - 1) / c.segment_bytes);
  };
  std::uint64_t most = 1;
  for (const std::uint64_t bytes : c.sizes) {
    const std::uint64_t block = (bytes / kElementBytes + c.ranks - 1) / c.ranks * kElementBytes;
    switch (c.algorithm_for(bytes)) {
      case CollectiveAlgorithm::kRing:  // 2(N-1) blocks from the previous rank
        most = std::max<std::uint64_t>(most, 2 * (c.ranks - 1) * eager_segments(block));
        break;
      case CollectiveAlgorithm::kRecursiveDoubling:  // the pre-step's and an exchange's
        most = std::max<std::uint64_t>(most, 2);
        break;
      case CollectiveAlgorithm::kChain:
        most = std::max<std::uint64_t>(most, eager_segments(bytes));
        break;
      case CollectiveAlgorithm::kPointToPoint:  // a window and the answer
        most = std::max<std::uint64_t>(most, c.window + 1);
        break;
      default:  // one message from each peer
        break;
    }
  }
  return static_cast<std::uint32_t>(std::min<std::uint64_t>(most, kMaxEagerDepth));
}

std::size_t ring_scratch_slots(const CollectivesConfig& c, std::uint64_t bytes) {
  return bytes <= kRingAllSlotsBytes ? std::max<std::size_t>(3, c.ranks - 1) : 3;
}

std::uint64_t recursive_doubling_exchanges(std::size_t ranks) {
  std::uint64_t exchanges = 0;
  for (std::size_t power = 1; power * 2 <= ranks; power *= 2) ++exchanges;
  return exchanges;
}

std::uint64_t rank_buffer_bytes(const CollectivesConfig& c, std::uint64_t bytes) {
  const std::uint64_t n = c.ranks;
  // A ring's block: the size's elements split N ways, the first blocks one element more.
  const std::uint64_t elements = bytes / kElementBytes;
  const std::uint64_t block = (elements + n - 1) / n * kElementBytes;
  switch (c.test) {
    case CollectiveTest::kAllreduce:
      // In place: the buffer, and scratch for what arrives before it is
      // summed: the ring's three blocks (receives posted two steps ahead),
      // recursive doubling's one message per exchange and one for the pre-step.
      if (c.algorithm_for(bytes) == CollectiveAlgorithm::kRing) {
        return bytes + ring_scratch_slots(c, bytes) * block;
      }
      // and its eager copies, one per exchange.
      return bytes + (2 * recursive_doubling_exchanges(c.ranks) + 1) * bytes;
    case CollectiveTest::kReduceScatter:
      return bytes + ring_scratch_slots(c, bytes) * block;
    case CollectiveTest::kAllgather:
      return bytes + n * bytes;  // the rank's part, and everyone's
    case CollectiveTest::kBcast:
      return bytes;
    case CollectiveTest::kAlltoall:
      return 2 * n * bytes;  // a block for every rank, out and in
    default:
      // A send and a receive buffer, and room for bw's 4-byte answer to a smaller message.
      return 2 * bytes + kElementBytes;
  }
}

}  // namespace rnicsim
