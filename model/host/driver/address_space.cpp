#include "host/driver/address_space.hpp"

#include <algorithm>
#include <stdexcept>

namespace rnicsim {

AddressSpace::AddressSpace(PageAllocator& allocator, std::uint64_t va_base)
    : allocator_(allocator), next_va_(va_base) {}

std::uint64_t AddressSpace::allocate(std::uint64_t length) {
  const std::uint64_t page = page_bytes();
  const std::uint64_t va = (next_va_ + page - 1) / page * page;
  const std::uint64_t pages = std::max<std::uint64_t>(1, (length + page - 1) / page);
  const std::vector<std::uint64_t> frames = allocator_.allocate(pages);
  for (std::uint64_t i = 0; i < pages; ++i) page_table_[va / page + i] = frames[i];
  next_va_ = va + (pages + 1) * page;  // the gap catches overruns
  return va;
}

void AddressSpace::map_range(std::uint64_t va, std::uint64_t length) {
  if (length == 0) return;
  const std::uint64_t page = page_bytes();
  for (std::uint64_t vpn = va / page; vpn <= (va + length - 1) / page; ++vpn) {
    if (page_table_.count(vpn) == 0) page_table_[vpn] = allocator_.allocate(1).front();
  }
}

std::uint64_t AddressSpace::physical(std::uint64_t va) const {
  const auto found = page_table_.find(va / page_bytes());
  if (found == page_table_.end()) throw std::out_of_range("unmapped virtual address");
  return found->second + va % page_bytes();
}

std::vector<std::uint64_t> AddressSpace::frames(std::uint64_t va, std::uint64_t length) const {
  std::vector<std::uint64_t> result;
  if (length == 0) return result;
  const std::uint64_t page = page_bytes();
  for (std::uint64_t vpn = va / page; vpn <= (va + length - 1) / page; ++vpn) {
    result.push_back(physical(vpn * page));
  }
  return result;
}

void AddressSpace::write(HostMemory& memory, std::uint64_t va, const std::uint8_t* data,
                         std::uint64_t length) const {
  while (length > 0) {
    const std::uint64_t n = std::min(length, page_bytes() - va % page_bytes());
    memory.write_bytes(physical(va), data, n);
    va += n;
    data += n;
    length -= n;
  }
}

void AddressSpace::read(const HostMemory& memory, std::uint64_t va, std::uint8_t* data,
                        std::uint64_t length) const {
  while (length > 0) {
    const std::uint64_t n = std::min(length, page_bytes() - va % page_bytes());
    memory.read_bytes(physical(va), data, n);
    va += n;
    data += n;
    length -= n;
  }
}

}  // namespace rnicsim
