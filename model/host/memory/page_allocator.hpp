#pragma once
// PageAllocator: hands out physical page frames from a pool of host memory,
// scattered the way a long-running host's free lists are.
//
// The order frames come in is fixed by the seed: with fragmentation 0 in
// ascending address order (a fresh machine: consecutive allocations are
// physically contiguous), with 1 in a uniformly random order, and in between
// each frame handed out is, with that probability, swapped for a random one
// of those not yet handed out. The order is drawn lazily, one frame at a
// time (a Fisher-Yates shuffle that remembers only the frames it moved), so a
// pool of any size costs memory only for what has been allocated.
#include <cstdint>
#include <random>
#include <unordered_map>
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
  // The physical address of `count` free frames that follow one another (a
  // DMA buffer a device reads in one piece, as Linux's dma_alloc_coherent
  // hands out): the highest such run of frames not yet handed out. They
  // leave the order, so later allocations differ from a run without it.
  // Throws std::runtime_error when no such run is free.
  std::uint64_t allocate_contiguous(std::uint64_t count);
  // Returns frames to the pool; they are handed out again first.
  void release(const std::vector<std::uint64_t>& frames);

  std::uint64_t page_bytes() const { return page_bytes_; }
  std::uint64_t free_frames() const { return frames_ - drawn_ + released_.size(); }

 private:
  // The next frame of the seeded order, as a frame number.
  std::uint64_t draw();
  // The frame number now at `position` of the order.
  std::uint64_t frame_at(std::uint64_t position) const;

  std::uint64_t page_bytes_;
  std::uint64_t first_frame_;  // frame number of the pool's first frame
  std::uint64_t frames_;       // positions in the order: the pool's frames but
                               // those allocate_contiguous took out
  std::uint64_t pool_frames_;  // frames in the pool
  std::uint64_t drawn_ = 0;    // positions [0, drawn_) of the order are handed out
  std::uint64_t swap_threshold_;  // a draw swaps when random() % 10^9 is below this
  std::mt19937_64 random_;
  std::unordered_map<std::uint64_t, std::uint64_t> moved_;  // position -> frame, where a swap put it
  std::vector<std::uint64_t> released_;  // returned frames; the back is handed out next
};

}  // namespace rnicsim
