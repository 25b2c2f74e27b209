#include "interface/ring_layout.hpp"

#include <algorithm>

namespace rnicsim {

std::uint64_t RingLayout::address(std::uint64_t index) const {
  const std::uint64_t byte = (index % entries) * entry_bytes;
  return pages.at(byte / page_bytes) + byte % page_bytes;
}

std::uint32_t RingLayout::contiguous(std::uint64_t index) const {
  const std::uint64_t slot = index % entries;
  const std::uint64_t byte = slot * entry_bytes;
  const std::uint64_t in_page = (page_bytes - byte % page_bytes) / entry_bytes;
  return static_cast<std::uint32_t>(std::min<std::uint64_t>(in_page, entries - slot));
}

}  // namespace rnicsim
