#pragma once
// The collectives experiment's table and results.json: OSU micro-benchmarks'
// format (osu_util's "%-10s%18s" header, "%-10d%18.2f" rows) for every test,
// or nccl-tests' columns (size, count, type, redop, root, time, algbw,
// busbw, #wrong) for the collectives. Kernel-free.
//
//   latency (collectives): each rank's time in the operation (from the common
//     start until it has received everything), the ranks' mean (OSU's Avg
//     Latency), averaged over the operations; osu_latency's: half of rank
//     0's ping-pong
//   time (nccl-tests): the slowest rank's, averaged over the operations
//   bw, bibw: bytes x window (x 2 for bibw) over the window's time, MB/s (10^6)
//   mbw_mr: the pairs' bytes together, MB/s, and their messages per second
//   algbw: bytes over the time (GB/s, 10^9); busbw: algbw x nccl-tests'
//     factor: allreduce 2(N-1)/N, allgather and reduce_scatter (N-1)/N,
//     alltoall (N-1)/N, bcast 1
#include <cstdint>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "program/experiments/collectives/collectives_config.hpp"

namespace rnicsim {

struct CollectivesRow {
  std::uint64_t bytes = 0;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::kRing;
  // Per timed operation: the ranks' mean time in it, the slowest rank's, rank 0's.
  std::vector<double> mean_ns, most_ns, rank0_ns;
  std::vector<double> cpu_ns_per_operation;  // per rank, its cores' work
  std::vector<double> step_end_ns;           // rank 0's, mean since the start
};

class CollectivesReport {
 public:
  CollectivesReport(const CollectivesConfig& config, std::ostream& out);

  void print_header();
  // Prints the row at once.
  void add(const CollectivesRow& row);
  // CPU per operation per rank and, with breakdown, the steps, as '#' lines.
  void print_footer();
  nlohmann::json json(const std::vector<std::string>& rank_nodes) const;

  // nccl-tests' size of an operation of `bytes` per rank (the larger buffer).
  std::uint64_t nccl_bytes(std::uint64_t bytes) const;
  double bus_factor() const;

 private:
  // OSU's figure's time: the ranks' mean (collectives) or rank 0's (point to
  // point), averaged over the operations.
  double osu_ns(const CollectivesRow& row) const;
  // nccl-tests' time: the slowest rank's, averaged over the operations.
  double completion_ns(const CollectivesRow& row) const;
  // The figure the OSU row prints: us, or MB/s.
  double osu_figure(const CollectivesRow& row) const;
  double messages_per_second(const CollectivesRow& row) const;

  const CollectivesConfig& config_;
  std::ostream& out_;
  std::vector<CollectivesRow> rows_;
};

}  // namespace rnicsim
