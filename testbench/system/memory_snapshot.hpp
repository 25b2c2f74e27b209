#pragma once
// MemorySnapshot: all of one host's physical memory as it was at one moment,
// to show later that traffic changed no byte outside the ranges it may write
// (the registered regions, the rings the driver and the NIC share). Only
// chunks holding a byte outside those ranges are copied, so a snapshot of a
// host with large registered buffers stays small. Untimed and read-only: it
// reads HostMemory through for_each_chunk, never through its socket.
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "host/driver/address_space.hpp"
#include "host/driver/verbs.hpp"
#include "host/memory/host_memory.hpp"

namespace rnicsim::testing {

// Physical byte ranges, kept sorted and merged.
class RangeSet {
 public:
  void add(std::uint64_t address, std::uint64_t length);
  // Whether every byte of [address, address + length) is in the set.
  bool covers(std::uint64_t address, std::uint64_t length) const;
  // Whether any byte of [address, address + length) is in the set.
  bool touches(std::uint64_t address, std::uint64_t length) const;
  bool contains(std::uint64_t address) const { return covers(address, 1); }

 private:
  std::map<std::uint64_t, std::uint64_t> ranges_;  // first byte -> one past the last
};

// The physical bytes behind [va, va + length) of a process.
void add_virtual_range(RangeSet& set, const AddressSpace& space, std::uint64_t va,
                       std::uint64_t length);
// The bytes of a ring (its entries, not the rest of its last page).
void add_ring(RangeSet& set, const RingLayout& ring);
// Both rings of a QP, the ring of a CQ.
void add_queues(RangeSet& set, const ibv_qp& qp);
void add_queues(RangeSet& set, const ibv_cq& cq);

class MemorySnapshot {
 public:
  // `may_change`: the ranges the check ignores.
  MemorySnapshot(const HostMemory& memory, RangeSet may_change);

  // Every difference between `memory` now and the snapshot outside the ranges
  // that may change: bytes whose value changed, and chunks a write allocated
  // that hold no byte of those ranges (a stray write, even of zeros). At most
  // `limit` runs of changed bytes are described; the last line counts them all.
  // Empty when nothing changed.
  std::vector<std::string> changes(const HostMemory& memory, std::size_t limit = 8) const;

 private:
  RangeSet may_change_;
  std::unordered_map<std::uint64_t, std::vector<std::uint8_t>> chunks_;  // address -> bytes
};

}  // namespace rnicsim::testing
