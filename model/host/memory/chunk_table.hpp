#pragma once
// ChunkTable: HostMemory's storage, a chunk's index (address / chunk size) to
// its bytes, for the chunks written so far.
//
// A 100,000-QP write_bw writes about 4 chunks per QP over its two hosts
// (results/bench/qp_100k.md: 16,448 B of host memory per QP), 400,000 in
// all; a node-based hash map with one allocation and one clearing per chunk
// spent a third of that run's time in malloc and page faults. Here the index
// is one open-addressing table (linear probing, no node to allocate or
// chase), and chunks are cut in order from slabs mapped anonymous, which the
// kernel fills with zeros on first touch: no allocation or clearing per
// chunk, and resident memory grows only with what is written (and the
// table, 16 B a slot, 2 to 4 slots a chunk). Slabs of 2 MiB and more ask for
// transparent huge pages: where the kernel gives them (it aligns such
// mappings from Linux 6.7), a fault and a TLB entry per 512 chunks, for at
// most one partly used huge page. Chunks live as long as the table.
//
// An AddressSanitizer build allocates each chunk on its own instead, so that
// an access past a chunk's end hits a red zone, not the next chunk.
#include <cstddef>
#include <cstdint>
#include <memory>
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
  const std::uint8_t* find(std::uint64_t index) const { return lookup(index); }
  std::uint8_t* find(std::uint64_t index) { return lookup(index); }
  // The chunk's bytes, a zero-filled chunk if it had none.
  std::uint8_t* find_or_add(std::uint64_t index);
  // From now on the chunk is `bytes` (not null), storage the caller keeps
  // alive as long as this table. What the chunk held before is no longer
  // seen (its storage stays with the table, unused).
  void share(std::uint64_t index, std::uint8_t* bytes);

  std::size_t size() const { return size_; }
  // Every chunk, its index and bytes, in no particular order (the same for
  // the same calls).
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

  // The slot that holds `index`, or the free slot that ends its probe, in a
  // table of `slots` (a power of two, not full). The probe starts at the top
  // log2(size) bits of index x 2^64/phi (Fibonacci hashing; `shift` is
  // 64 - log2(size)), so consecutive chunk indices spread over the table.
  static std::size_t probe(const std::vector<Slot>& slots, unsigned shift, std::uint64_t index);
  std::uint8_t* lookup(std::uint64_t index) const;
  // The free slot of an `index` the table does not hold, growing the table
  // first if adding one more would leave it more than half full.
  Slot& free_slot_for(std::uint64_t index);
  std::uint8_t* new_chunk();

  std::vector<Slot> slots_;  // a power of two long, at most half full
  unsigned shift_ = 64;      // 64 - log2(slots_.size())
  std::size_t size_ = 0;
  std::vector<Slab> slabs_;
  std::uint8_t* next_chunk_ = nullptr;  // in the newest slab
  std::size_t chunks_left_ = 0;
  std::vector<std::unique_ptr<std::uint8_t[]>> separate_chunks_;  // AddressSanitizer builds
};

}  // namespace rnicsim
