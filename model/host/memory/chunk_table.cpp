#include "host/memory/chunk_table.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <new>
#include <utility>

namespace rnicsim {

namespace {

// Slabs double from 64 KiB, so that a host that writes little (one of 64 on a
// star) maps little, up to 64 MiB, so that a large one makes few mappings.
constexpr std::size_t kFirstSlabChunks = 16;
constexpr std::size_t kLargestSlabChunks = 16384;
constexpr std::size_t kFirstTableSlots = 64;
constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;
// GCC's AddressSanitizer flag, as in common/simulation.cpp (the model is
// built with g++ only): red zones around each chunk.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kChunksOnTheirOwn = true;
#else
constexpr bool kChunksOnTheirOwn = false;
#endif

}  // namespace

ChunkTable::~ChunkTable() {
  for (const Slab& slab : slabs_) munmap(slab.base, slab.bytes);
}

std::size_t ChunkTable::probe(const std::vector<Slot>& slots, unsigned shift, std::uint64_t index) {
  const std::size_t mask = slots.size() - 1;
  std::size_t s = static_cast<std::size_t>((index * 0x9E3779B97F4A7C15ULL) >> shift);
  while (slots[s].bytes != nullptr && slots[s].index != index) s = (s + 1) & mask;
  return s;
}

std::uint8_t* ChunkTable::lookup(std::uint64_t index) const {
  return slots_.empty() ? nullptr : slots_[probe(slots_, shift_, index)].bytes;
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
      if (slot.bytes != nullptr) bigger[probe(bigger, shift, slot.index)] = slot;
    }
    slots_ = std::move(bigger);
    shift_ = shift;
  }
  return slots_[probe(slots_, shift_, index)];
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
    Slot& slot = slots_[probe(slots_, shift_, index)];
    if (slot.bytes != nullptr) {
      slot.bytes = bytes;
      return;
    }
  }
  free_slot_for(index) = Slot{index, bytes};
  ++size_;
}

}  // namespace rnicsim
