#pragma once
// RingLayout: where a ring's entries lie in host memory, as the driver lays a
// send, receive or completion ring out and the NIC's transport reads it.
#include <cstdint>
#include <vector>

namespace rnicsim {

// A ring of fixed-size entries in host memory whose pages need not be
// contiguous: entry i of the ring lies in page (i * entry_bytes) / page_bytes.
struct RingLayout {
  std::vector<std::uint64_t> pages;
  std::uint64_t page_bytes = 0;
  std::uint32_t entry_bytes = 0;
  std::uint32_t entries = 0;  // a power of two

  std::uint64_t address(std::uint64_t index) const;
  // Entries from `index` on that lie contiguously in one page, without wrapping.
  std::uint32_t contiguous(std::uint64_t index) const;
};

}  // namespace rnicsim
