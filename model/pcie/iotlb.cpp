#include "pcie/iotlb.hpp"

namespace rnicsim::pcie {

Iotlb::Iotlb(std::uint32_t entries, std::uint32_t page_bytes)
    : entries_(entries), page_bytes_(page_bytes) {}

bool Iotlb::access(std::uint64_t address) {
  const std::uint64_t page = address / page_bytes_;
  const auto found = pages_.find(page);
  if (found != pages_.end()) {
    lru_.splice(lru_.begin(), lru_, found->second);
    ++hits_;
    return true;
  }
  ++misses_;
  if (pages_.size() == entries_) {
    pages_.erase(lru_.back());
    lru_.pop_back();
  }
  lru_.push_front(page);
  pages_[page] = lru_.begin();
  return false;
}

}  // namespace rnicsim::pcie
