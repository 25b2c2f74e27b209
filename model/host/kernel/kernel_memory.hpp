#pragma once
// KernelMemory: the kernel's physically contiguous memory (rings, packet
// buffers, socket buffers), handed out from a fixed zone below the NIC's
// tables, as dma_alloc_coherent hands a driver contiguous DMA memory. The
// application's pages come from the page allocator above the tables and
// never overlap it.
#include <cstdint>
#include <stdexcept>
#include <string>

#include "host/host.hpp"

namespace rnicsim {

inline constexpr std::uint64_t kKernelZoneBase = 4ULL << 20;
inline constexpr std::uint64_t kKernelZoneEnd = kIcmBase;

class KernelMemory {
 public:
  // `bytes` aligned to `alignment` (a power of two); throws
  // std::invalid_argument naming `what` when the zone is exhausted.
  std::uint64_t allocate(std::uint64_t bytes, std::uint64_t alignment, const std::string& what) {
    const std::uint64_t start = (next_ + alignment - 1) & ~(alignment - 1);
    if (start + bytes > kKernelZoneEnd || start + bytes < start) {
      throw std::invalid_argument(what + ": " + std::to_string(bytes) +
                                  " bytes do not fit the kernel's memory (" +
                                  std::to_string((kKernelZoneEnd - kKernelZoneBase) >> 20) +
                                  " MiB, " + std::to_string(kKernelZoneEnd - next_) + " bytes left)");
    }
    next_ = start + bytes;
    return start;
  }
  std::uint64_t used_bytes() const { return next_ - kKernelZoneBase; }

 private:
  std::uint64_t next_ = kKernelZoneBase;
};

}  // namespace rnicsim
