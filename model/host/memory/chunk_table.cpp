#include "host/memory/chunk_table.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <new>

namespace rnicsim {

namespace {

// Slabs double from 64 KiB, so that a host that writes little (one of 64 on a
// star) maps little, up to 64 MiB, so that a large one makes few mappings.
constexpr std::size_t kFirstSlabChunks = 16;
constexpr std::size_t kLargestSlabChunks = 16384;
constexpr std::size_t kFirstTableSlots = 64;
constexpr std::size_t kHugePageBytes = 2 << 20;

}  // namespace

ChunkTable::~ChunkTable() {
  for (const Slab& slab : slabs_) munmap(slab.base, slab.bytes);
}

ChunkTable::Slot& ChunkTable::slot_for(std::uint64_t index) {
  for (std::size_t s = home(index);; s = (s + 1) & mask_) {
    Slot& slot = slots_[s];
    if (slot.bytes == nullptr || slot.index == index) return slot;
  }
}

void ChunkTable::grow() {
  std::vector<Slot> old = std::move(slots_);
  const std::size_t capacity = old.empty() ? kFirstTableSlots : 2 * old.size();
  slots_.assign(capacity, Slot{});
  mask_ = capacity - 1;
  shift_ = 64;
  for (std::size_t c = capacity; c > 1; c >>= 1) --shift_;
  for (const Slot& slot : old) {
    if (slot.bytes != nullptr) slot_for(slot.index) = slot;
  }
}

std::uint8_t* ChunkTable::new_chunk() {
  if (chunks_left_ == 0) {
    const std::size_t chunks =
        slabs_.empty() ? kFirstSlabChunks
                       : std::min(kLargestSlabChunks, 2 * slabs_.back().bytes / kChunkBytes);
    const std::size_t bytes = chunks * kChunkBytes;
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
  if (2 * (size_ + 1) > slots_.size()) grow();
  Slot& slot = slot_for(index);
  if (slot.bytes == nullptr) {
    slot = Slot{index, new_chunk()};
    ++size_;
  }
  return slot.bytes;
}

void ChunkTable::share(std::uint64_t index, std::uint8_t* bytes) {
  if (2 * (size_ + 1) > slots_.size()) grow();
  Slot& slot = slot_for(index);
  if (slot.bytes == nullptr) ++size_;
  slot = Slot{index, bytes};
}

}  // namespace rnicsim
