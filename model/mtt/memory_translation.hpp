#pragma once
// MemoryTranslation: the NIC's memory protection and translation unit.
//
// translate(key, VA, length, access, PD) checks the key against its MPT entry
// and turns the virtually contiguous range into the physical segments of its
// scattered pages. Entries come from two set-associative caches (MPT, MTT);
// a miss sends the page-table walker to fetch the entry from the tables in
// host memory by DMA through `walker2dma` (bound to the DMA engine, so PCIe
// costs apply, or to host memory directly). An MTT miss fetches the missing
// entry plus `prefetch_entries` following ones of the same MR in one read.
//
// Time: every translation pays the cache's hit latency once (the MPT and MTT
// lookups are pipelined); each walk adds its DMA time. Errors, checked in
// this order: key index beyond the MPT or entry not valid (invalid key), key
// variant differs (stale key), PD differs, access not granted, range outside
// the MR. A zero-length range needs no key (IB spec) and translates to no segments.
#include <cstdint>
#include <functional>
#include <string>
#include <systemc>
#include <vector>

#include "common/clock_domain.hpp"
#include "host_memory/memory_initiator.hpp"
#include "mtt/mpt_format.hpp"
#include "mtt/translation_cache.hpp"

namespace rnicsim {

enum class TranslationStatus { kOk, kInvalidKey, kStaleKey, kPdMismatch, kAccessDenied, kOutOfBounds };
std::string to_string(TranslationStatus status);

struct PhysicalSegment {
  std::uint64_t address = 0;
  std::uint64_t length = 0;
  bool operator==(const PhysicalSegment& o) const {
    return address == o.address && length == o.length;
  }
};

struct TranslationResult {
  TranslationStatus status = TranslationStatus::kOk;
  std::vector<PhysicalSegment> segments;  // physically contiguous pages merged
};

struct MemoryTranslationConfig {
  IcmLayout icm;
  CacheGeometry mpt_cache;
  CacheGeometry mtt_cache;
  double clock_mhz = 0;
  std::uint32_t hit_cycles = 0;
  std::uint32_t prefetch_entries = 0;
  std::uint64_t seed = 0;  // random replacement
};

struct MemoryTranslationStats {
  std::uint64_t translations = 0;
  std::uint64_t errors = 0;
  std::uint64_t mpt_walks = 0;
  std::uint64_t mtt_walks = 0;
  sc_core::sc_time walk_time;  // DMA time of every walk, summed
};

class MemoryTranslation : public sc_core::sc_module {
 public:
  MemoryInitiator walker2dma;

  MemoryTranslation(const sc_core::sc_module_name& name, const MemoryTranslationConfig& config);

  // Blocking: call from a thread; returns after the translation's time.
  TranslationResult translate(std::uint32_t key, std::uint64_t va, std::uint64_t length,
                              std::uint32_t access, std::uint32_t pd);

  // Sees the DMA time of every walk as it ends (for a distribution; the
  // stats keep only counts and the sum).
  using WalkObserver = std::function<void(const sc_core::sc_time& took)>;
  void set_walk_observer(WalkObserver observer) { walk_observer_ = std::move(observer); }

  // Starts a new design point of a sweep: both caches empty, as in a fresh
  // unit, the MTT cache with `mtt_cache`'s geometry. Call between translations.
  void restart(const CacheGeometry& mtt_cache);

  // Drops cached entries the driver has changed.
  void invalidate(std::uint32_t mpt_index, std::uint64_t first_mtt, std::uint32_t pages);

  const MemoryTranslationStats& stats() const { return stats_; }
  const TranslationCache<MptEntry>& mpt_cache() const { return mpt_cache_; }
  const TranslationCache<std::uint64_t>& mtt_cache() const { return mtt_cache_; }

 private:
  TranslationStatus check(std::uint32_t key, const MptEntry& mpt, std::uint64_t va,
                          std::uint64_t length, std::uint32_t access, std::uint32_t pd) const;
  MptEntry fetch_mpt(std::uint32_t index);
  std::uint64_t fetch_mtt(const MptEntry& mpt, std::uint64_t mtt_index);
  // Reads host memory through the walker's port and waits the DMA time.
  void walk_read(std::uint64_t address, std::uint8_t* data, std::size_t length);

  MemoryTranslationConfig config_;
  ClockDomain clock_;
  TranslationCache<MptEntry> mpt_cache_;
  TranslationCache<std::uint64_t> mtt_cache_;
  MemoryTranslationStats stats_;
  WalkObserver walk_observer_;
};

}  // namespace rnicsim
