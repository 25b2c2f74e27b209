#pragma once
// AddressSpace: one process's virtual memory. A buffer is virtually
// contiguous and backed page by page with frames from the page allocator,
// which are physically scattered: the reason a NIC needs its own page table.
#include <cstdint>
#include <map>
#include <vector>

#include "host/memory/host_memory.hpp"
#include "host/memory/page_allocator.hpp"

namespace rnicsim {

class AddressSpace {
 public:
  // Buffers are placed from va_base upwards, one unmapped page between them.
  AddressSpace(PageAllocator& allocator, std::uint64_t va_base);

  // Maps a new buffer of `length` bytes; returns its page-aligned VA.
  std::uint64_t allocate(std::uint64_t length);
  // Maps every page of [va, va + length) not mapped yet, with fresh frames:
  // a buffer whose addresses another process chose (an application attached
  // by rnicsim exec registers its own heap). Throws std::bad_alloc as
  // allocate does when the pool runs out.
  void map_range(std::uint64_t va, std::uint64_t length);
  // Throws std::out_of_range for an unmapped address.
  std::uint64_t physical(std::uint64_t va) const;
  // Frames of the pages [va, va + length) touches, in VA order.
  std::vector<std::uint64_t> frames(std::uint64_t va, std::uint64_t length) const;
  std::uint64_t page_bytes() const { return allocator_.page_bytes(); }

  // The CPU's untimed loads and stores, page by page through the page table.
  void write(HostMemory& memory, std::uint64_t va, const std::uint8_t* data,
             std::uint64_t length) const;
  void read(const HostMemory& memory, std::uint64_t va, std::uint8_t* data,
            std::uint64_t length) const;

 private:
  PageAllocator& allocator_;
  std::uint64_t next_va_;
  std::map<std::uint64_t, std::uint64_t> page_table_;  // virtual page number -> frame address
};

}  // namespace rnicsim
