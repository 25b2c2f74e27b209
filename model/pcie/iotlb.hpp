#pragma once
// IOTLB: the IOMMU's cache of page translations, fully associative with LRU
// replacement. The model keeps DMA addresses identical to physical addresses
// and charges only the time a miss costs.
#include <cstdint>
#include <list>
#include <unordered_map>

namespace rnicsim::pcie {

class Iotlb {
 public:
  Iotlb(std::uint32_t entries, std::uint32_t page_bytes);

  // True on a hit. A miss installs the page, evicting the least recently used.
  bool access(std::uint64_t address);

  std::uint64_t hits() const { return hits_; }
  std::uint64_t misses() const { return misses_; }

 private:
  std::uint32_t entries_;
  std::uint32_t page_bytes_;
  std::list<std::uint64_t> lru_;  // most recent first
  std::unordered_map<std::uint64_t, std::list<std::uint64_t>::iterator> pages_;
  std::uint64_t hits_ = 0;
  std::uint64_t misses_ = 0;
};

}  // namespace rnicsim::pcie
