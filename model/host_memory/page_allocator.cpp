#include "host_memory/page_allocator.hpp"

#include <algorithm>
#include <random>
#include <stdexcept>

namespace rnicsim {

PageAllocator::PageAllocator(std::uint64_t pool_base, std::uint64_t pool_bytes,
                             std::uint64_t page_bytes, double fragmentation, std::uint64_t seed)
    : page_bytes_(page_bytes) {
  if (page_bytes == 0 || (page_bytes & (page_bytes - 1)) != 0) {
    throw std::invalid_argument("page size must be a power of two");
  }
  if (!(fragmentation >= 0 && fragmentation <= 1)) {
    throw std::invalid_argument("fragmentation must be in [0, 1]");
  }
  const std::uint64_t first = (pool_base + page_bytes - 1) / page_bytes;
  const std::uint64_t end = (pool_base + pool_bytes) / page_bytes;
  if (end <= first) throw std::invalid_argument("the pool holds no whole page");

  std::vector<std::uint64_t> order;
  order.reserve(end - first);
  for (std::uint64_t frame = first; frame < end; ++frame) order.push_back(frame * page_bytes);
  // mt19937_64's output is fixed by the standard, so the order is the same on
  // every platform; the modulo bias is far below anything a test could see.
  std::mt19937_64 random(seed);
  const auto threshold = static_cast<std::uint64_t>(fragmentation * 1e9);
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (random() % 1000000000ULL < threshold) {
      std::swap(order[i], order[random() % order.size()]);
    }
  }
  free_.assign(order.rbegin(), order.rend());
}

std::vector<std::uint64_t> PageAllocator::allocate(std::uint64_t count) {
  if (count > free_.size()) {
    throw std::runtime_error("out of physical memory: " + std::to_string(count) +
                             " pages asked, " + std::to_string(free_.size()) + " free");
  }
  std::vector<std::uint64_t> frames(free_.rbegin(), free_.rbegin() + static_cast<std::ptrdiff_t>(count));
  free_.resize(free_.size() - count);
  return frames;
}

void PageAllocator::release(const std::vector<std::uint64_t>& frames) {
  free_.insert(free_.end(), frames.rbegin(), frames.rend());
}

}  // namespace rnicsim
