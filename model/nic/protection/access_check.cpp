#include "nic/protection/access_check.hpp"

namespace rnicsim {

namespace {
// The test-only variant (testbench/hostile) admits one byte past the end.
#ifdef RNICSIM_TEST_ONLY_BOUNDS_OVERRUN
constexpr std::uint64_t kOverrun = 1;
#else
constexpr std::uint64_t kOverrun = 0;
#endif
}  // namespace

TranslationStatus check_region_access(std::uint32_t key, const MptEntry& mpt, std::uint64_t va,
                                      std::uint64_t length, std::uint32_t access,
                                      std::uint32_t pd) {
  if (!mpt.valid) return TranslationStatus::kInvalidKey;
  if (mpt.key_variant != key_variant(key)) return TranslationStatus::kStaleKey;
  if (mpt.pd != pd) return TranslationStatus::kPdMismatch;
  if ((access & ~static_cast<std::uint32_t>(mpt.access)) != 0)
    return TranslationStatus::kAccessDenied;
  // In offsets from the region's start, so no sum can wrap past 2^64.
  const std::uint64_t end = mpt.length + kOverrun;
  if (va < mpt.base_va || length > end || va - mpt.base_va > end - length) {
    return TranslationStatus::kOutOfBounds;
  }
  return TranslationStatus::kOk;
}

bool bounds_check_is_broken_for_test() { return kOverrun != 0; }

}  // namespace rnicsim
