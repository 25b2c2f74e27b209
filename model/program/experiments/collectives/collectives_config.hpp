#pragma once
// The collectives experiment's section: which MPI-style test runs on how
// many of the topology's nodes (one rank per node, ranks in topology order),
// over which transport, at which sizes, with which algorithm. Kernel-free.
//
//   collectives.test       allreduce, allgather, reduce_scatter, bcast, alltoall
//                          (collectives), latency, bw, bibw, mbw_mr (point to point)
//   collectives.algorithm  auto, ring, recursive_doubling (allreduce),
//                          binomial, chain (bcast)
//   collectives.transport  rdma (RC QPs, SEND/RECV), tcp (the kernel path)
#include <cstdint>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "config/run_config.hpp"
#include "system/topology.hpp"

namespace rnicsim {

enum class CollectiveTest : std::uint8_t {
  kAllreduce,
  kAllgather,
  kReduceScatter,
  kBcast,
  kAlltoall,
  kLatency,  // osu_latency: ping-pong between ranks 0 and 1
  kBw,       // osu_bw: a window of messages from rank 0 to 1, then a reply
  kBibw,     // osu_bibw: windows both ways at once
  kMbwMr,    // osu_mbw_mr: ranks i and i + N/2 as pairs, each a bw test
};

// The algorithm one operation of a size uses (auto resolved per size).
enum class CollectiveAlgorithm : std::uint8_t {
  kRing,               // allreduce, allgather, reduce_scatter: chunked and pipelined
  kRecursiveDoubling,  // allreduce: log2(N) exchanges, MPICH's treatment of N not 2^k
  kBinomial,           // bcast: a binomial tree from rank 0
  kChain,              // bcast: a pipelined chain 0 -> 1 -> ... -> N-1
  kPairwise,           // alltoall: every pair at once
  kPointToPoint,       // the point-to-point tests
};

enum class CollectiveTransport : std::uint8_t { kRdma, kTcp };

// The reduced element: a 32-bit integer summed modulo 2^32, so every order
// of reduction gives the same bits and results are checked exactly.
inline constexpr std::uint64_t kElementBytes = 4;
inline constexpr const char* kElementType = "int32";
// OSU's LARGE_MESSAGE_SIZE: above it, fewer warm-up operations.
inline constexpr std::uint64_t kLargeMessageBytes = 8192;
// RDMA messages up to this size go inline in the WQE (perftest's send_lat
// figure): the buffer may be rewritten once the post returns.
inline constexpr std::uint64_t kInlineSendBytes = 236;

struct CollectivesConfig {
  CollectiveTest test = CollectiveTest::kAllreduce;
  std::string algorithm = "auto";  // as given
  CollectiveTransport transport = CollectiveTransport::kRdma;
  std::size_t ranks = 2;             // the first `ranks` nodes of the topology
  std::vector<std::uint64_t> sizes;  // bytes, min_bytes to max_bytes by doubling
  std::uint64_t iterations = 100;
  std::uint64_t warmup = 100;       // sizes up to kLargeMessageBytes
  std::uint64_t warmup_large = 10;  // larger sizes
  std::uint64_t segment_bytes = 65536;
  std::uint64_t short_bytes = 65536;
  double reduce_gbps = 80;
  std::uint64_t step_ns = 0;
  std::uint64_t window = 64;
  std::uint8_t priority = 3;
  bool nccl_format = false;
  bool breakdown = false;

  bool is_point_to_point() const { return test >= CollectiveTest::kLatency; }
  bool reduces() const {
    return test == CollectiveTest::kAllreduce || test == CollectiveTest::kReduceScatter;
  }
  std::uint64_t warmup_for(std::uint64_t bytes) const {
    return bytes <= kLargeMessageBytes ? warmup : warmup_large;
  }
  // The algorithm one operation of `bytes` uses.
  CollectiveAlgorithm algorithm_for(std::uint64_t bytes) const;
};

const char* to_string(CollectiveTest test);
const char* to_string(CollectiveAlgorithm algorithm);
const char* to_string(CollectiveTransport transport);

void declare_collectives_keys(config::Schema& schema);
// Reads and checks the section against the topology: a refused value throws
// config::ConfigError naming its key (more ranks than nodes, a size that is
// not a whole number of elements, an algorithm the test does not have, a
// point-to-point test on the wrong number of ranks, buffers past the run's
// memory budget).
CollectivesConfig collectives_config(config::RunConfig& run, const Topology& topology);

// The ring's reduce-scatter scratch, in blocks: one per summing step up to
// 4 MiB (every summing receive posted before the operation, so no SEND finds
// none and is answered by an RNR NAK), but at least three, and three beyond
// (receives up to three steps ahead, the memory a 64 MiB operation can
// afford). Receives are posted as many steps ahead as there are blocks.
inline constexpr std::uint64_t kRingAllSlotsBytes = 4 << 20;
std::size_t ring_scratch_slots(const CollectivesConfig& c, std::uint64_t bytes);
// RDMA's eager channel (rank_link.hpp): messages up to kEagerBytes go to
// bounce buffers each rank keeps posted, eager_depth of them per peer: as
// many as a peer can send it in one operation, so none finds them all taken.
inline constexpr std::uint64_t kEagerBytes = 8192;
inline constexpr std::uint64_t kMaxEagerDepth = 1024;  // the QPs' receive queue depth
std::uint32_t eager_depth(const CollectivesConfig& c);
// log2 of the largest power of two not above `ranks`.
std::uint64_t recursive_doubling_exchanges(std::size_t ranks);
// The bytes one rank registers for the largest size (its buffers and scratch).
std::uint64_t rank_buffer_bytes(const CollectivesConfig& c, std::uint64_t bytes);

}  // namespace rnicsim
