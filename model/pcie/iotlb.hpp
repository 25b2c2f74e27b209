#pragma once
// IOTLB: the IOMMU's cache of page translations, fully associative with LRU
// replacement. The model keeps DMA addresses identical to physical addresses
// and charges only the time a miss costs. A page whose walk is still under
// way is not ready before the walk ends, even for the TLPs that hit it.
#include <cstdint>
#include <list>
#include <systemc>
#include <unordered_map>

namespace rnicsim::pcie {

class Iotlb {
 public:
  Iotlb(std::uint32_t entries, std::uint32_t page_bytes);

  // When the translation of `address`, looked up at `at`, is available: `at`
  // on a hit to a ready page, the end of the walk on a hit to a page being
  // walked, `at + walk` on a miss (which installs the page, evicting the
  // least recently used). Lookups should come in order of `at`; the link books
  // a window of TLPs ahead, so one may come early by up to a window, which
  // only blurs the LRU order and which lookup starts a shared walk.
  sc_core::sc_time translate(std::uint64_t address, const sc_core::sc_time& at,
                             const sc_core::sc_time& walk);

  std::uint64_t hits() const { return hits_; }
  std::uint64_t misses() const { return misses_; }

 private:
  struct Entry {
    std::uint64_t page;
    sc_core::sc_time ready;
  };
  std::uint32_t entries_;
  std::uint32_t page_bytes_;
  std::list<Entry> lru_;  // most recent first
  std::unordered_map<std::uint64_t, std::list<Entry>::iterator> pages_;
  std::uint64_t hits_ = 0;
  std::uint64_t misses_ = 0;
};

}  // namespace rnicsim::pcie
