#include "host/memory/chunk_table.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <new>
#include <utility>

// GCC defines __SANITIZE_ADDRESS__ under -fsanitize=address; clang answers
// __has_feature.
#if defined(__SANITIZE_ADDRESS__)
#define RNICSIM_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RNICSIM_ADDRESS_SANITIZER 1
#endif
#endif
#ifndef RNICSIM_ADDRESS_SANITIZER
#define RNICSIM_ADDRESS_SANITIZER 0
#endif

namespace rnicsim {

namespace {

// Slabs double from 64 KiB, so that a host that writes little (one of 64 on a
// star) maps little, up to 64 MiB, so that a large one makes few mappings.
constexpr std::size_t kFirstSlabChunks = 16;
constexpr std::size_t kLargestSlabChunks = 16384;
constexpr std::size_t kFirstTableSlots = 64;
constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;
constexpr bool kChunksOnTheirOwn = RNICSIM_ADDRESS_SANITIZER;  // red zones around each

std::size_t probe_start(std::uint64_t index, unsigned shift) {
  return static_cast<std::size_t>((index * 0x9E3779B97F4A7C15ULL) >> shift);
}

}  // namespace

ChunkTable::~ChunkTable() {
  for (const Slab& slab : slabs_) munmap(slab.base, slab.bytes);
}

std::size_t ChunkTable::home(std::uint64_t index) const { return probe_start(index, shift_); }

std::uint8_t* ChunkTable::lookup(std::uint64_t index) const {
  if (slots_.empty()) return nullptr;
  for (std::size_t s = home(index);; s = (s + 1) & mask_) {
    const Slot& slot = slots_[s];
    if (slot.bytes == nullptr || slot.index == index) return slot.bytes;
  }
}

ChunkTable::Slot& ChunkTable::free_slot_for(std::uint64_t index) {
  if (2 * (size_ + 1) > slots_.size()) {
    // The bigger table is filled before it replaces this one, so a failed
    // allocation leaves the table as it was.
    const std::size_t capacity = slots_.empty() ? kFirstTableSlots : 2 * slots_.size();
    unsigned shift = 64;
    for (std::size_t c = capacity; c > 1; c >>= 1) --shift;
    std::vector<Slot> bigger(capacity);
    for (const Slot& slot : slots_) {
      if (slot.bytes == nullptr) continue;
      std::size_t s = probe_start(slot.index, shift);
      while (bigger[s].bytes != nullptr) s = (s + 1) & (capacity - 1);
      bigger[s] = slot;
    }
    slots_ = std::move(bigger);
    mask_ = capacity - 1;
    shift_ = shift;
  }
  std::size_t s = home(index);
  while (slots_[s].bytes != nullptr) s = (s + 1) & mask_;
  return slots_[s];
}

std::uint8_t* ChunkTable::new_chunk() {
  if (kChunksOnTheirOwn) {
    separate_chunks_.push_back(std::make_unique<std::uint8_t[]>(kChunkBytes));  // zeroed
    return separate_chunks_.back().get();
  }
  if (chunks_left_ == 0) {
    const std::size_t chunks =
        slabs_.empty() ? kFirstSlabChunks
                       : std::min(kLargestSlabChunks, 2 * slabs_.back().bytes / kChunkBytes);
    const std::size_t bytes = chunks * kChunkBytes;
    slabs_.reserve(slabs_.size() + 1);  // so that recording the slab cannot fail
    void* base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) throw std::bad_alloc();
    if (bytes >= kHugePageBytes) madvise(base, bytes, MADV_HUGEPAGE);
    slabs_.push_back(Slab{base, bytes});
    next_chunk_ = static_cast<std::uint8_t*>(base);
    chunks_left_ = chunks;
  }
  std::uint8_t* chunk = next_chunk_;
  next_chunk_ += kChunkBytes;
  --chunks_left_;
  return chunk;
}

std::uint8_t* ChunkTable::find_or_add(std::uint64_t index) {
  if (std::uint8_t* bytes = lookup(index)) return bytes;
  Slot& slot = free_slot_for(index);
  std::uint8_t* bytes = new_chunk();
  slot = Slot{index, bytes};
  ++size_;
  return bytes;
}

void ChunkTable::share(std::uint64_t index, std::uint8_t* bytes) {
  if (!slots_.empty()) {
    for (std::size_t s = home(index);; s = (s + 1) & mask_) {
      Slot& slot = slots_[s];
      if (slot.bytes == nullptr) break;
      if (slot.index == index) {
        slot.bytes = bytes;
        return;
      }
    }
  }
  free_slot_for(index) = Slot{index, bytes};
  ++size_;
}

}  // namespace rnicsim
