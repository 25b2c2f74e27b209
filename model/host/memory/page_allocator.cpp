#include "host/memory/page_allocator.hpp"

#include <optional>
#include <stdexcept>
#include <string>

namespace rnicsim {

PageAllocator::PageAllocator(std::uint64_t pool_base, std::uint64_t pool_bytes,
                             std::uint64_t page_bytes, double fragmentation, std::uint64_t seed)
    : page_bytes_(page_bytes), random_(seed) {
  if (page_bytes == 0 || (page_bytes & (page_bytes - 1)) != 0) {
    throw std::invalid_argument("page size must be a power of two");
  }
  if (!(fragmentation >= 0 && fragmentation <= 1)) {
    throw std::invalid_argument("fragmentation must be in [0, 1]");
  }
  first_frame_ = (pool_base + page_bytes - 1) / page_bytes;
  const std::uint64_t end = (pool_base + pool_bytes) / page_bytes;
  if (end <= first_frame_) throw std::invalid_argument("the pool holds no whole page");
  frames_ = end - first_frame_;
  pool_frames_ = frames_;
  swap_threshold_ = static_cast<std::uint64_t>(fragmentation * 1e9);
}

std::uint64_t PageAllocator::frame_at(std::uint64_t position) const {
  const auto moved = moved_.find(position);
  return moved == moved_.end() ? position : moved->second;
}

std::uint64_t PageAllocator::draw() {
  const std::uint64_t position = drawn_++;
  std::uint64_t frame = frame_at(position);
  // mt19937_64's output is fixed by the standard, so the order is the same on
  // every platform; the modulo bias is far below anything a test could see.
  if (random_() % 1000000000ULL < swap_threshold_) {
    const std::uint64_t other = position + random_() % (frames_ - position);
    const std::uint64_t other_frame = frame_at(other);
    moved_[other] = frame;
    frame = other_frame;
  }
  moved_.erase(position);  // never looked at again
  return frame;
}

std::vector<std::uint64_t> PageAllocator::allocate(std::uint64_t count) {
  if (count > free_frames()) {
    throw std::runtime_error("out of physical memory: " + std::to_string(count) +
                             " pages asked, " + std::to_string(free_frames()) + " free");
  }
  std::vector<std::uint64_t> frames;
  frames.reserve(count);
  for (; count > 0 && !released_.empty(); --count) {
    frames.push_back(released_.back());
    released_.pop_back();
  }
  for (; count > 0; --count) frames.push_back((first_frame_ + draw()) * page_bytes_);
  return frames;
}

std::uint64_t PageAllocator::allocate_contiguous(std::uint64_t count) {
  // A frame is free when it sits at a position of the order not yet drawn:
  // one a swap moved there, or its own position when nothing moved it away.
  std::unordered_map<std::uint64_t, std::uint64_t> position_of;  // of moved frames
  for (const auto& [position, frame] : moved_) position_of[frame] = position;
  auto position = [&](std::uint64_t frame) -> std::optional<std::uint64_t> {
    const auto moved = position_of.find(frame);
    if (moved != position_of.end()) return moved->second;
    if (frame >= drawn_ && frame < frames_ && moved_.find(frame) == moved_.end()) return frame;
    return std::nullopt;
  };
  std::uint64_t run = 0;
  std::uint64_t first = pool_frames_;
  while (run < count && first > 0) {
    --first;
    run = position(first) ? run + 1 : 0;
  }
  if (count == 0 || run < count) {
    throw std::runtime_error("out of physical memory: no " + std::to_string(count) +
                             " contiguous pages free");
  }
  // Each frame of the run leaves the order: the order's last frame takes its
  // position and the order ends one sooner, so an unfragmented pool's order
  // stays in address order.
  for (std::uint64_t frame = first + count; frame-- > first;) {
    const std::uint64_t at = *position(frame);
    const std::uint64_t last = frames_ - 1;
    if (at != last) {
      const std::uint64_t displaced = frame_at(last);
      moved_[at] = displaced;
      position_of[displaced] = at;
    }
    position_of.erase(frame);
    moved_.erase(last);
    --frames_;
  }
  return (first_frame_ + first) * page_bytes_;
}

void PageAllocator::release(const std::vector<std::uint64_t>& frames) {
  released_.insert(released_.end(), frames.rbegin(), frames.rend());
}

}  // namespace rnicsim
