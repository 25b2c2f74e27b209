#pragma once
// PageAllocator: hands out physical page frames from a pool of host memory,
// scattered the way a long-running host's free lists are.
//
// The pool's frames are put in an order fixed by the seed: with fragmentation
// 0 in ascending address order (a fresh machine: consecutive allocations are
// physically contiguous), with 1 in a uniformly random order, and in between
// each frame is swapped with a random one with that probability.
#include <cstdint>
#include <vector>

namespace rnicsim {

class PageAllocator {
 public:
  // The pool is [pool_base, pool_base + pool_bytes), rounded inward to whole
  // pages. Throws std::invalid_argument for a page size that is not a power
  // of two, a fragmentation outside [0, 1], or a pool without a whole page.
  PageAllocator(std::uint64_t pool_base, std::uint64_t pool_bytes, std::uint64_t page_bytes,
                double fragmentation, std::uint64_t seed);

  // Physical addresses of `count` free frames, in allocation order. Throws
  // std::runtime_error when the pool has fewer free frames.
  std::vector<std::uint64_t> allocate(std::uint64_t count);
  // Returns frames to the pool; they are handed out again first.
  void release(const std::vector<std::uint64_t>& frames);

  std::uint64_t page_bytes() const { return page_bytes_; }
  std::uint64_t free_frames() const { return free_.size(); }

 private:
  std::uint64_t page_bytes_;
  std::vector<std::uint64_t> free_;  // next frame to hand out at the back
};

}  // namespace rnicsim
