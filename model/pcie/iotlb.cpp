#include "pcie/iotlb.hpp"

#include <algorithm>

namespace rnicsim::pcie {

Iotlb::Iotlb(std::uint32_t entries, std::uint32_t page_bytes)
    : entries_(entries), page_bytes_(page_bytes) {}

sc_core::sc_time Iotlb::translate(std::uint64_t address, const sc_core::sc_time& at,
                                  const sc_core::sc_time& walk) {
  const std::uint64_t page = address / page_bytes_;
  const auto found = pages_.find(page);
  if (found != pages_.end()) {
    lru_.splice(lru_.begin(), lru_, found->second);
    ++hits_;
    return std::max(at, found->second->ready);
  }
  ++misses_;
  if (pages_.size() == entries_) {
    pages_.erase(lru_.back().page);
    lru_.pop_back();
  }
  lru_.push_front(Entry{page, at + walk});
  pages_[page] = lru_.begin();
  return at + walk;
}

}  // namespace rnicsim::pcie
