#include "program/experiments/collectives/collective_algorithms.hpp"

#include <algorithm>
#include <cstring>
#include <set>

#include "common/time_units.hpp"

namespace rnicsim {
namespace {

std::size_t lowest_bit(std::size_t value) { return value & (~value + 1); }

// The most segments a ring block or a chain's message is cut in.
constexpr std::uint64_t kMaxSegments = 256;

// Recursive doubling's ranks: p the largest power of two not above N, q = N - p.
struct Doubling {
  std::size_t p = 1, q = 0;
  explicit Doubling(std::size_t ranks) {
    while (p * 2 <= ranks) p *= 2;
    q = ranks - p;
  }
  // A rank's number among the p that exchange, or none (an even rank below 2q).
  std::optional<std::size_t> active(std::size_t rank) const {
    if (rank < 2 * q) {
      if (rank % 2 == 0) return std::nullopt;
      return rank / 2;
    }
    return rank - q;
  }
  std::size_t rank_of(std::size_t active_rank) const {
    return active_rank < q ? active_rank * 2 + 1 : active_rank + q;
  }
};

}  // namespace

CollectiveRank::CollectiveRank(std::size_t rank, const CollectivesConfig& config, RankLink& link,
                               AddressSpace& process, HostMemory& memory, std::uint64_t base_va)
    : rank_(rank),
      ranks_(config.ranks),
      config_(config),
      link_(link),
      process_(process),
      memory_(memory),
      base_(base_va) {}

std::vector<CollectiveRank::Block> CollectiveRank::blocks(std::uint64_t bytes) const {
  const std::uint64_t elements = bytes / kElementBytes;
  std::vector<Block> out(ranks_);
  std::uint64_t offset = 0;
  for (std::size_t b = 0; b < ranks_; ++b) {
    const std::uint64_t count = elements / ranks_ + (b < elements % ranks_ ? 1 : 0);
    out[b] = {offset, count * kElementBytes};
    offset += out[b].bytes;
  }
  return out;
}

std::vector<CollectiveRank::Segment> CollectiveRank::segments(std::uint64_t block_bytes) const {
  // At most kMaxSegments a block, so that three steps' receives fit a QP's
  // receive queue: a larger block takes larger segments.
  const std::uint64_t fewest = (block_bytes + kMaxSegments - 1) / kMaxSegments;
  const std::uint64_t size =
      std::max(config_.segment_bytes, (fewest + kElementBytes - 1) / kElementBytes * kElementBytes);
  std::vector<Segment> out;
  for (std::uint64_t at = 0; at < block_bytes; at += size) {
    out.push_back({at, std::min(size, block_bytes - at)});
  }
  return out;
}

std::size_t CollectiveRank::block_at(long step, long shift) const {
  const long n = static_cast<long>(ranks_);
  return static_cast<std::size_t>(((static_cast<long>(rank_) - step + shift) % n + n) % n);
}

RankLayout CollectiveRank::layout(std::uint64_t bytes) const {
  RankLayout l;
  l.input_va = base_;
  l.input_bytes = bytes;
  l.output_va = base_;
  l.output_bytes = bytes;
  switch (config_.test) {
    case CollectiveTest::kAllreduce:
    case CollectiveTest::kBcast:
      break;
    case CollectiveTest::kReduceScatter: {
      const Block own = blocks(bytes)[rank_];
      l.output_va = base_ + own.offset;
      l.output_bytes = own.bytes;
      break;
    }
    case CollectiveTest::kAllgather:
      l.output_va = base_ + bytes;
      l.output_bytes = ranks_ * bytes;
      break;
    case CollectiveTest::kAlltoall:
      l.input_bytes = ranks_ * bytes;
      l.output_va = base_ + ranks_ * bytes;
      l.output_bytes = ranks_ * bytes;
      break;
    default:  // point to point: a send buffer, then a receive buffer
      l.output_va = base_ + bytes;
      break;
  }
  return l;
}

std::vector<std::pair<std::size_t, std::size_t>> CollectiveRank::pairs(const CollectivesConfig& c) {
  std::set<std::pair<std::size_t, std::size_t>> out;
  const std::size_t n = c.ranks;
  const auto add = [&out](std::size_t a, std::size_t b) {
    if (a != b) out.insert({std::min(a, b), std::max(a, b)});
  };
  std::set<CollectiveAlgorithm> used;
  for (const std::uint64_t bytes : c.sizes) used.insert(c.algorithm_for(bytes));
  for (const CollectiveAlgorithm algorithm : used) {
    switch (algorithm) {
      case CollectiveAlgorithm::kRing:
        for (std::size_t r = 0; r < n; ++r) add(r, (r + 1) % n);
        break;
      case CollectiveAlgorithm::kRecursiveDoubling: {
        const Doubling d(n);
        for (std::size_t r = 0; r < 2 * d.q; r += 2) add(r, r + 1);
        for (std::size_t i = 0; i < d.p; ++i) {
          for (std::size_t mask = 1; mask < d.p; mask <<= 1) add(d.rank_of(i), d.rank_of(i ^ mask));
        }
        break;
      }
      case CollectiveAlgorithm::kBinomial:
        for (std::size_t r = 1; r < n; ++r) add(r - lowest_bit(r), r);
        break;
      case CollectiveAlgorithm::kChain:
        for (std::size_t r = 0; r + 1 < n; ++r) add(r, r + 1);
        break;
      case CollectiveAlgorithm::kPairwise:
        for (std::size_t a = 0; a < n; ++a) {
          for (std::size_t b = a + 1; b < n; ++b) add(a, b);
        }
        break;
      case CollectiveAlgorithm::kPointToPoint:
        for (std::size_t r = 0; r < n / 2; ++r) add(r, r + n / 2);
        break;
    }
  }
  return {out.begin(), out.end()};
}

void CollectiveRank::prepare(std::uint64_t bytes) {
  bytes_ = bytes;
  algorithm_ = config_.algorithm_for(bytes);
  pending_.clear();
  switch (algorithm_) {
    case CollectiveAlgorithm::kRing: {
      ring_ = Ring{};
      ring_.blocks = blocks(bytes);
      ring_.buffer = base_;
      std::uint64_t largest = 0;
      for (const Block& b : ring_.blocks) largest = std::max(largest, b.bytes);
      ring_.scratch = base_ + bytes;
      ring_.scratch_slot = largest;
      if (config_.test == CollectiveTest::kAllreduce) {
        ring_.steps = 2 * (ranks_ - 1);
        ring_.reduce_steps = ranks_ - 1;
      } else if (config_.test == CollectiveTest::kReduceScatter) {
        ring_.steps = ranks_ - 1;
        ring_.reduce_steps = ranks_ - 1;
        ring_.shift = -1;  // so that rank r ends with block r
      } else {             // allgather: every rank's part, block r its own
        ring_.buffer = base_ + bytes;
        ring_.blocks.assign(ranks_, Block{});
        for (std::size_t b = 0; b < ranks_; ++b) ring_.blocks[b] = {b * bytes, bytes};
        ring_.steps = ranks_ - 1;
      }
      ring_.slots = ring_scratch_slots(config_, bytes);
      ring_.receives.assign(ring_.steps, {});
      post_ring_ahead(0);
      break;
    }
    case CollectiveAlgorithm::kRecursiveDoubling:
      prepare_recursive_doubling();
      break;
    case CollectiveAlgorithm::kBinomial:
    case CollectiveAlgorithm::kChain:
      prepare_bcast();
      break;
    case CollectiveAlgorithm::kPairwise:
      prepare_alltoall();
      break;
    case CollectiveAlgorithm::kPointToPoint:
      prepare_point_to_point();
      break;
  }
}

void CollectiveRank::run(std::uint64_t bytes) {
  if (bytes != bytes_) throw std::logic_error("run() without its prepare()");
  switch (algorithm_) {
    case CollectiveAlgorithm::kRing:
      run_ring();
      break;
    case CollectiveAlgorithm::kRecursiveDoubling:
      run_recursive_doubling();
      break;
    case CollectiveAlgorithm::kBinomial:
    case CollectiveAlgorithm::kChain:
      run_bcast();
      break;
    case CollectiveAlgorithm::kPairwise:
      run_alltoall();
      break;
    case CollectiveAlgorithm::kPointToPoint:
      run_point_to_point();
      break;
  }
  link_.wait_receives();
}

void CollectiveRank::complete() { link_.wait_all(); }

// --- ring -------------------------------------------------------------------

void CollectiveRank::post_ring_ahead(std::size_t steps_done) {
  // A summing step's receive needs a free scratch slot (its step less
  // `slots` is done); a forwarding step's goes straight to the buffer, and
  // is posted as far ahead, so the receive queue holds at most `slots` steps.
  while (ring_.posted < ring_.steps && ring_.posted < steps_done + ring_.slots) {
    post_ring_step(ring_.posted++);
  }
}

void CollectiveRank::post_ring_step(std::size_t step) {
  const long j = static_cast<long>(step);
  const Block& block = ring_.blocks[block_at(j + 1, ring_.shift)];
  for (const Segment& s : segments(block.bytes)) {
    const std::uint64_t into =
        step < ring_.reduce_steps
            ? ring_.scratch + (step % ring_.slots) * ring_.scratch_slot + s.offset
            : ring_.buffer + block.offset + s.offset;
    ring_.receives[step].push_back(link_.irecv(prev(), into, s.bytes));
  }
}

void CollectiveRank::run_ring() {
  if (config_.test == CollectiveTest::kAllgather) {
    copy(ring_.buffer + ring_.blocks[rank_].offset, base_, bytes_);
  }
  const Block& first = ring_.blocks[block_at(0, ring_.shift)];
  for (const Segment& s : segments(first.bytes)) {
    link_.isend(next(), ring_.buffer + first.offset + s.offset, s.bytes);
  }
  for (std::size_t step = 0; step < ring_.steps; ++step) {
    post_ring_ahead(step);
    // What arrives this step is what goes on next step: S(j + 1) = R(j).
    const Block& block = ring_.blocks[block_at(static_cast<long>(step) + 1, ring_.shift)];
    const std::vector<Segment> parts = segments(block.bytes);
    for (std::size_t k = 0; k < parts.size(); ++k) {
      link_.wait(ring_.receives[step][k]);
      const std::uint64_t at = ring_.buffer + block.offset + parts[k].offset;
      if (step < ring_.reduce_steps) {
        reduce(at, ring_.scratch + (step % ring_.slots) * ring_.scratch_slot + parts[k].offset,
               parts[k].bytes);
      }
      if (step + 1 < ring_.steps) link_.isend(next(), at, parts[k].bytes);
    }
    if (on_step) on_step(step);
  }
}

// --- recursive doubling -----------------------------------------------------

void CollectiveRank::prepare_recursive_doubling() {
  const Doubling d(ranks_);
  const std::uint64_t n = bytes_;
  const std::uint64_t scratch = base_ + n;  // slot 0: the pre-step's, slot 1 + m: exchange m's
  if (rank_ < 2 * d.q) {
    // The even rank's one receive is the result; the odd rank's first, its partner's buffer.
    pending_.push_back(rank_ % 2 == 0 ? link_.irecv(rank_ + 1, base_, n)
                                      : link_.irecv(rank_ - 1, scratch, n));
  }
  if (const std::optional<std::size_t> me = d.active(rank_)) {
    std::uint64_t slot = 1;
    for (std::size_t mask = 1; mask < d.p; mask <<= 1, ++slot) {
      pending_.push_back(link_.irecv(d.rank_of(*me ^ mask), scratch + slot * n, n));
    }
  }
}

void CollectiveRank::run_recursive_doubling() {
  const Doubling d(ranks_);
  const std::uint64_t n = bytes_;
  const std::uint64_t scratch = base_ + n;
  std::size_t next_receive = 0;
  const std::optional<std::size_t> me = d.active(rank_);
  if (rank_ < 2 * d.q && !me) {
    link_.isend(rank_ + 1, base_, n);
    link_.wait(pending_[next_receive++]);
    if (on_step) on_step(0);
    return;
  }
  if (rank_ < 2 * d.q) {
    link_.wait(pending_[next_receive++]);
    reduce(base_, scratch, n);
  }
  // What goes out is the buffer as it stands; the buffer is then summed into
  // before that send completes, so a message too long to go inline goes
  // from an eager copy (MPI's eager protocol), one slot per exchange.
  const std::uint64_t eager = scratch + (recursive_doubling_exchanges(ranks_) + 1) * n;
  std::size_t step = 0;
  std::uint64_t slot = 1;
  for (std::size_t mask = 1; mask < d.p; mask <<= 1, ++slot, ++step) {
    std::uint64_t from = base_;
    if (!link_.takes_bytes_at_post(n)) {
      from = eager + (slot - 1) * n;
      copy(from, base_, n);
    }
    link_.isend(d.rank_of(*me ^ mask), from, n);
    link_.wait(pending_[next_receive++]);
    reduce(base_, scratch + slot * n, n);
    if (on_step) on_step(step);
  }
  if (rank_ < 2 * d.q) link_.isend(rank_ - 1, base_, n);
}

// --- bcast ------------------------------------------------------------------

void CollectiveRank::prepare_bcast() {
  if (rank_ == 0) return;
  if (algorithm_ == CollectiveAlgorithm::kBinomial) {
    pending_.push_back(link_.irecv(rank_ - lowest_bit(rank_), base_, bytes_));
    return;
  }
  for (const Segment& s : segments(bytes_)) {
    pending_.push_back(link_.irecv(rank_ - 1, base_ + s.offset, s.bytes));
  }
}

void CollectiveRank::run_bcast() {
  if (algorithm_ == CollectiveAlgorithm::kBinomial) {
    std::size_t mask = 1;
    while (mask < ranks_) mask <<= 1;
    if (rank_ != 0) {
      link_.wait(pending_[0]);
      mask = lowest_bit(rank_);
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
      if (rank_ + mask < ranks_) link_.isend(rank_ + mask, base_, bytes_);
    }
    if (on_step) on_step(0);
    return;
  }
  const std::vector<Segment> parts = segments(bytes_);
  for (std::size_t k = 0; k < parts.size(); ++k) {
    if (rank_ != 0) link_.wait(pending_[k]);
    if (rank_ + 1 < ranks_) link_.isend(rank_ + 1, base_ + parts[k].offset, parts[k].bytes);
  }
  if (on_step) on_step(0);
}

// --- alltoall ---------------------------------------------------------------

void CollectiveRank::prepare_alltoall() {
  const RankLayout l = layout(bytes_);
  for (std::size_t k = 1; k < ranks_; ++k) {
    const std::size_t from = (rank_ + ranks_ - k) % ranks_;
    pending_.push_back(link_.irecv(from, l.output_va + from * bytes_, bytes_));
  }
}

void CollectiveRank::run_alltoall() {
  const RankLayout l = layout(bytes_);
  copy(l.output_va + rank_ * bytes_, l.input_va + rank_ * bytes_, bytes_);
  for (std::size_t k = 1; k < ranks_; ++k) {
    const std::size_t to = (rank_ + k) % ranks_;
    link_.isend(to, l.input_va + to * bytes_, bytes_);
  }
  for (const RankLink::Request r : pending_) link_.wait(r);
  if (on_step) on_step(0);
}

// --- point to point ---------------------------------------------------------
// latency: rank 0 sends, rank 1 answers with as many bytes. bw and mbw_mr:
// the lower half of the ranks send a window each to their partner (rank +
// N/2), which answers with 4 bytes once all arrived. bibw: both send a window.

void CollectiveRank::prepare_point_to_point() {
  const RankLayout l = layout(bytes_);
  const std::size_t half = ranks_ / 2;
  const bool sender = rank_ < half;
  const std::size_t peer = sender ? rank_ + half : rank_ - half;
  switch (config_.test) {
    case CollectiveTest::kLatency:
      pending_.push_back(link_.irecv(peer, l.output_va, bytes_));
      break;
    case CollectiveTest::kBibw:
      for (std::uint64_t m = 0; m < config_.window; ++m) {
        pending_.push_back(link_.irecv(peer, l.output_va, bytes_));
      }
      break;
    default:  // bw, mbw_mr
      if (sender) {
        pending_.push_back(link_.irecv(peer, l.output_va, kElementBytes));
      } else {
        for (std::uint64_t m = 0; m < config_.window; ++m) {
          pending_.push_back(link_.irecv(peer, l.output_va, bytes_));
        }
      }
      break;
  }
}

void CollectiveRank::run_point_to_point() {
  const RankLayout l = layout(bytes_);
  const std::size_t half = ranks_ / 2;
  const bool sender = rank_ < half;
  const std::size_t peer = sender ? rank_ + half : rank_ - half;
  switch (config_.test) {
    case CollectiveTest::kLatency:
      if (!sender) link_.wait(pending_[0]);
      link_.isend(peer, l.input_va, bytes_);
      break;
    case CollectiveTest::kBibw:
      for (std::uint64_t m = 0; m < config_.window; ++m) link_.isend(peer, l.input_va, bytes_);
      break;
    default:
      if (sender) {
        for (std::uint64_t m = 0; m < config_.window; ++m) link_.isend(peer, l.input_va, bytes_);
      } else {
        for (const RankLink::Request r : pending_) link_.wait(r);
        link_.isend(peer, l.input_va, kElementBytes);
      }
      break;
  }
  if (on_step) on_step(0);
}

// --- the CPU's part ---------------------------------------------------------

void CollectiveRank::charge(std::uint64_t bytes) {
  const double ns = static_cast<double>(bytes) * 8 / config_.reduce_gbps;
  link_.core().run(picoseconds(static_cast<std::uint64_t>(ns * 1000 + 0.5)), CpuWork::kReduce);
}

void CollectiveRank::reduce(std::uint64_t dst, std::uint64_t src, std::uint64_t bytes) {
  // The working copies keep their capacity: no allocation per segment.
  if (sum_.size() < bytes) sum_.resize(bytes);
  if (operand_.size() < bytes) operand_.resize(bytes);
  process_.read(memory_, dst, sum_.data(), bytes);
  process_.read(memory_, src, operand_.data(), bytes);
  for (std::uint64_t i = 0; i < bytes; i += kElementBytes) {
    std::uint32_t x, y;
    std::memcpy(&x, &sum_[i], kElementBytes);
    std::memcpy(&y, &operand_[i], kElementBytes);
    x += y;  // int32 sum modulo 2^32: every order gives the same bits
    std::memcpy(&sum_[i], &x, kElementBytes);
  }
  process_.write(memory_, dst, sum_.data(), bytes);
  charge(bytes);
}

void CollectiveRank::copy(std::uint64_t dst, std::uint64_t src, std::uint64_t bytes) {
  if (sum_.size() < bytes) sum_.resize(bytes);
  process_.read(memory_, src, sum_.data(), bytes);
  process_.write(memory_, dst, sum_.data(), bytes);
  charge(bytes);
}

}  // namespace rnicsim
