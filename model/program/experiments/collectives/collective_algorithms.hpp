#pragma once
// CollectiveRank: one rank's side of the collectives and OSU's
// point-to-point tests, written once over RankLink (rank_link.hpp) for both
// transports. One operation is prepare() (the receives that can be posted
// before it starts, as an MPI library's eager buffers are), then, once every
// rank has prepared, run().
//
// Algorithms (N ranks, n bytes, rank r; blocks are n split N ways in
// elements, the first n mod N blocks one element more):
//   ring (allreduce, reduce_scatter, allgather): step j sends block
//     (r - j + shift) mod N to r+1 and receives block (r - j - 1 + shift)
//     mod N from r-1; allreduce runs 2(N-1) steps, summing in the first N-1
//     (reduce-scatter) and forwarding in the rest (all-gather). A block moves
//     as segments of at most segment_bytes, and a segment goes on as soon as
//     it arrived (and was summed): the steps pipeline. Reduce-scatter's
//     segments arrive in scratch, a block per step (so every summing step's
//     receives are posted before it starts) up to ring_scratch_slots' size,
//     three blocks beyond it; all-gather's straight into the buffer; either
//     way receives are posted as many steps ahead as there are scratch
//     blocks. A block is cut in at most 256 segments (larger ones for larger
//     blocks), so those steps' receives fit a QP's receive queue.
//   recursive_doubling (allreduce): MPICH's: with p the largest power of two
//     not above N and q = N - p, ranks below 2q pair up (the even one sends
//     its buffer to the odd one, which sums, and sits out), the p remaining
//     exchange whole buffers with the rank at distance 1, 2, 4, ... and sum,
//     and the odd ranks send the result back to their even partners.
//   binomial (bcast from rank 0): a rank receives from r - 2^k (the highest
//     bit of r) and sends to r + 2^j for each lower j.
//   chain (bcast): 0 -> 1 -> ... -> N-1, segment by segment.
//   pairwise (alltoall): every rank sends its block for every other rank and
//     receives theirs at once (receives first), its own block copied.
// Reductions and local copies run on the rank's core at
// collectives.reduce_gbps; the buffers' bytes are really summed.
#include <cstdint>
#include <functional>
#include <vector>

#include "program/experiments/collectives/collectives_config.hpp"
#include "program/experiments/collectives/rank_link.hpp"

namespace rnicsim {

// Where one operation's input and output are in a rank's memory.
struct RankLayout {
  std::uint64_t input_va = 0;
  std::uint64_t input_bytes = 0;
  std::uint64_t output_va = 0;  // the input's for in-place operations
  std::uint64_t output_bytes = 0;
};

class CollectiveRank {
 public:
  CollectiveRank(std::size_t rank, const CollectivesConfig& config, RankLink& link,
                 AddressSpace& process, HostMemory& memory, std::uint64_t base_va);

  RankLayout layout(std::uint64_t bytes) const;
  // The ranks this rank exchanges messages with, for any size of the test.
  static std::vector<std::pair<std::size_t, std::size_t>> pairs(const CollectivesConfig& config);

  void prepare(std::uint64_t bytes);
  // Returns once the rank has received all its operation needs (its last
  // sends may still await their acknowledgements, as an MPI call returns
  // once its eager sends are copied out).
  void run(std::uint64_t bytes);
  // Takes the operation's remaining send completions (between operations).
  void complete();
  // Called when step `step` of the operation has received everything.
  std::function<void(std::size_t step)> on_step;

 private:
  struct Block {
    std::uint64_t offset = 0;
    std::uint64_t bytes = 0;
  };
  struct Segment {
    std::uint64_t offset = 0;  // within its block
    std::uint64_t bytes = 0;
  };
  std::vector<Block> blocks(std::uint64_t bytes) const;
  std::vector<Segment> segments(std::uint64_t block_bytes) const;
  std::size_t next() const { return (rank_ + 1) % ranks_; }
  std::size_t prev() const { return (rank_ + ranks_ - 1) % ranks_; }
  std::size_t block_at(long step, long shift) const;

  // The ring's receives as far ahead as scratch allows, `steps_done` steps done.
  void post_ring_ahead(std::size_t steps_done);
  // The ring's receives of step `step`, into scratch slot step mod slots while it sums.
  void post_ring_step(std::size_t step);
  void run_ring();
  void prepare_recursive_doubling();
  void run_recursive_doubling();
  void prepare_bcast();
  void run_bcast();
  void prepare_alltoall();
  void run_alltoall();
  void prepare_point_to_point();
  void run_point_to_point();

  // dst[i] += src[i] for `bytes` of int32 elements, charged to the core.
  void reduce(std::uint64_t dst, std::uint64_t src, std::uint64_t bytes);
  void copy(std::uint64_t dst, std::uint64_t src, std::uint64_t bytes);
  void charge(std::uint64_t bytes);

  std::size_t rank_;
  std::size_t ranks_;
  const CollectivesConfig& config_;
  RankLink& link_;
  AddressSpace& process_;
  HostMemory& memory_;
  std::uint64_t base_;

  // The operation under way.
  std::uint64_t bytes_ = 0;
  CollectiveAlgorithm algorithm_ = CollectiveAlgorithm::kRing;
  // The ring's plan.
  struct Ring {
    std::uint64_t buffer = 0, scratch = 0, scratch_slot = 0;
    std::vector<Block> blocks;
    std::size_t steps = 0, reduce_steps = 0;
    std::size_t slots = 3, posted = 0;  // scratch blocks; steps whose receives are posted
    long shift = 0;
    std::vector<std::vector<RankLink::Request>> receives;  // per step, per segment
  } ring_;
  std::vector<RankLink::Request> pending_;   // requests prepare() posted, in order
  std::vector<std::uint8_t> sum_, operand_;  // reduce()'s and copy()'s working copies
};

}  // namespace rnicsim
