#pragma once
// ChunkTable: HostMemory's storage, a chunk's index (address / chunk size) to
// its bytes, for the chunks written so far.
//
// A host with 100,000 QPs writes some 200,000 chunks while it runs
// (results/bench/qp_100k.md); a node-based hash map with one allocation and
// one clearing per chunk spent a third of that run's time in malloc and page
// faults. Here the index is one open-addressing table (linear probing, no
// node to allocate or chase), and chunks are cut in order from slabs mapped
// anonymous, which the kernel fills with zeros on first touch: no allocation
// or clearing per chunk, and resident memory grows only with what is written.
// Slabs of 2 MiB and more ask for transparent huge pages: a fault and a TLB
// entry per 512 chunks, for at most one partly used huge page. Chunks live
// as long as the table.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace rnicsim {

class ChunkTable {
 public:
  static constexpr std::size_t kChunkBytes = 4096;

  ChunkTable() = default;
  ~ChunkTable();
  ChunkTable(const ChunkTable&) = delete;
  ChunkTable& operator=(const ChunkTable&) = delete;

  // The chunk's bytes; nullptr if it was never written.
  std::uint8_t* find(std::uint64_t index) const {
    if (slots_.empty()) return nullptr;
    for (std::size_t s = home(index);; s = (s + 1) & mask_) {
      const Slot& slot = slots_[s];
      if (slot.bytes == nullptr) return nullptr;
      if (slot.index == index) return slot.bytes;
    }
  }
  // The chunk's bytes, a zero-filled chunk if it had none.
  std::uint8_t* find_or_add(std::uint64_t index);
  // From now on the chunk is `bytes` (not null), storage the caller keeps
  // alive as long as this table; what the chunk held before is dropped.
  void share(std::uint64_t index, std::uint8_t* bytes);

  std::size_t size() const { return size_; }
  // Every chunk, its index and bytes, in no particular order (the same for
  // the same writes).
  template <typename Visit>
  void for_each(Visit&& visit) const {
    for (const Slot& slot : slots_) {
      if (slot.bytes != nullptr) visit(slot.index, static_cast<const std::uint8_t*>(slot.bytes));
    }
  }

 private:
  struct Slot {
    std::uint64_t index = 0;
    std::uint8_t* bytes = nullptr;  // nullptr: the slot is free
  };
  struct Slab {
    void* base;
    std::size_t bytes;
  };

  std::size_t home(std::uint64_t index) const {
    // Fibonacci hashing: consecutive chunk indices spread over the table.
    return static_cast<std::size_t>((index * 0x9E3779B97F4A7C15ULL) >> shift_);
  }
  Slot& slot_for(std::uint64_t index);  // its slot, or the free one it would take
  void grow();
  std::uint8_t* new_chunk();

  std::vector<Slot> slots_;  // a power of two long, at most half full
  std::size_t mask_ = 0;
  unsigned shift_ = 64;
  std::size_t size_ = 0;
  std::vector<Slab> slabs_;
  std::uint8_t* next_chunk_ = nullptr;  // in the newest slab
  std::size_t chunks_left_ = 0;
};

}  // namespace rnicsim
