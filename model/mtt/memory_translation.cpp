#include "mtt/memory_translation.hpp"

#include <algorithm>

#include "common/time_units.hpp"

namespace rnicsim {

std::string to_string(TranslationStatus status) {
  switch (status) {
    case TranslationStatus::kOk: return "ok";
    case TranslationStatus::kInvalidKey: return "invalid key";
    case TranslationStatus::kStaleKey: return "stale key";
    case TranslationStatus::kPdMismatch: return "PD mismatch";
    case TranslationStatus::kAccessDenied: return "access denied";
    case TranslationStatus::kOutOfBounds: return "out of bounds";
  }
  return "unknown";
}

MemoryTranslation::MemoryTranslation(const sc_core::sc_module_name& name,
                                     const MemoryTranslationConfig& config)
    : sc_core::sc_module(name),
      walker2dma("walker2dma"),
      config_(config),
      clock_(config.clock_mhz),
      mpt_cache_(config.mpt_cache, config.seed),
      mtt_cache_(config.mtt_cache, config.seed + 1) {}

void MemoryTranslation::walk_read(std::uint64_t address, std::uint8_t* data, std::size_t length) {
  const sc_core::sc_time start = sc_core::sc_time_stamp();
  sc_core::wait(walker2dma.read(address, data, length));
  const sc_core::sc_time took = sc_core::sc_time_stamp() - start;
  stats_.walk_time += took;
  if (walk_observer_) walk_observer_(took);
}

MptEntry MemoryTranslation::fetch_mpt(std::uint32_t index) {
  if (auto cached = mpt_cache_.lookup(index)) return *cached;
  std::uint8_t bytes[kMptEntryBytes];
  walk_read(config_.icm.mpt_base + std::uint64_t{index} * kMptEntryBytes, bytes, sizeof bytes);
  ++stats_.mpt_walks;
  const MptEntry entry = decode_mpt(bytes);
  mpt_cache_.insert(index, entry);
  return entry;
}

std::uint64_t MemoryTranslation::fetch_mtt(const MptEntry& mpt, std::uint64_t mtt_index) {
  if (auto cached = mtt_cache_.lookup(mtt_index)) return *cached;
  const std::uint64_t mr_end = mpt.first_mtt + mpt.pages;
  const std::uint64_t count = std::min<std::uint64_t>(1 + config_.prefetch_entries, mr_end - mtt_index);
  std::vector<std::uint8_t> bytes(count * kMttEntryBytes);
  walk_read(config_.icm.mtt_base + mtt_index * kMttEntryBytes, bytes.data(), bytes.size());
  ++stats_.mtt_walks;
  std::uint64_t wanted = 0;
  for (std::uint64_t i = 0; i < count; ++i) {
    std::uint64_t frame = 0;
    for (std::uint32_t b = 0; b < kMttEntryBytes; ++b) {
      frame |= static_cast<std::uint64_t>(bytes[i * kMttEntryBytes + b]) << (8 * b);
    }
    mtt_cache_.insert(mtt_index + i, frame);
    if (i == 0) wanted = frame;
  }
  return wanted;
}

TranslationStatus MemoryTranslation::check(std::uint32_t key, const MptEntry& mpt,
                                           std::uint64_t va, std::uint64_t length,
                                           std::uint32_t access, std::uint32_t pd) const {
  if (!mpt.valid) return TranslationStatus::kInvalidKey;
  if (mpt.key_variant != key_variant(key)) return TranslationStatus::kStaleKey;
  if (mpt.pd != pd) return TranslationStatus::kPdMismatch;
  if ((access & ~static_cast<std::uint32_t>(mpt.access)) != 0) return TranslationStatus::kAccessDenied;
  if (va < mpt.base_va || length > mpt.length || va - mpt.base_va > mpt.length - length) {
    return TranslationStatus::kOutOfBounds;
  }
  return TranslationStatus::kOk;
}

TranslationResult MemoryTranslation::translate(std::uint32_t key, std::uint64_t va,
                                               std::uint64_t length, std::uint32_t access,
                                               std::uint32_t pd) {
  ++stats_.translations;
  sc_core::wait(clock_.cycles(config_.hit_cycles));
  TranslationResult result;
  if (length == 0) return result;

  const std::uint32_t index = key_index(key);
  if (index >= config_.icm.mpt_entries) {
    result.status = TranslationStatus::kInvalidKey;
  } else {
    const MptEntry mpt = fetch_mpt(index);
    result.status = check(key, mpt, va, length, access, pd);
    if (result.status == TranslationStatus::kOk) {
      const std::uint64_t page = 1ULL << mpt.page_shift;
      const std::uint64_t first_page = mpt.base_va / page;
      for (std::uint64_t at = va, left = length; left > 0;) {
        const std::uint64_t n = std::min(left, page - at % page);
        const std::uint64_t frame = fetch_mtt(mpt, mpt.first_mtt + (at / page - first_page));
        const std::uint64_t physical = frame + at % page;
        if (!result.segments.empty() &&
            result.segments.back().address + result.segments.back().length == physical) {
          result.segments.back().length += n;
        } else {
          result.segments.push_back({physical, n});
        }
        at += n;
        left -= n;
      }
    }
  }
  if (result.status != TranslationStatus::kOk) ++stats_.errors;
  return result;
}

void MemoryTranslation::restart(const CacheGeometry& mtt_cache) {
  config_.mtt_cache = mtt_cache;
  mpt_cache_ = TranslationCache<MptEntry>(config_.mpt_cache, config_.seed);
  mtt_cache_ = TranslationCache<std::uint64_t>(config_.mtt_cache, config_.seed + 1);
}

void MemoryTranslation::invalidate(std::uint32_t mpt_index, std::uint64_t first_mtt,
                                   std::uint32_t pages) {
  mpt_cache_.invalidate(mpt_index);
  for (std::uint64_t i = 0; i < pages; ++i) mtt_cache_.invalidate(first_mtt + i);
}

}  // namespace rnicsim
