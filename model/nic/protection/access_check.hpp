#pragma once
// The memory-protection check of one access through a memory key: is the
// key's region valid, is this registration the key's (its variant byte), is
// it in the QP's protection domain, does it grant the access, and does
// [va, va + length) lie inside it. Kernel-free and alone in its library
// (rnicsim_protection) so that a test-only build of the library with a
// deliberately broken bounds check can be linked into the whole model
// (testbench/hostile): the whole-memory check must catch it.
#include <cstdint>

#include "interface/mpt_format.hpp"

namespace rnicsim {

enum class TranslationStatus {
  kOk,
  kInvalidKey,
  kStaleKey,
  kPdMismatch,
  kAccessDenied,
  kOutOfBounds
};

// The MPT entry `mpt` is the one `key` indexes; `access` is the
// IBV_ACCESS_* rights the access needs, `pd` the protection domain of the
// QP (or of the local key's user) asking. The first failing check, in the
// order above; kOk when all pass. Wrapping address arithmetic cannot pass:
// the bounds check compares offsets, never va + length.
TranslationStatus check_region_access(std::uint32_t key, const MptEntry& mpt, std::uint64_t va,
                                      std::uint64_t length, std::uint32_t access, std::uint32_t pd);

// Whether this library is the test-only variant that lets one byte past a
// region's end through (RNICSIM_TEST_ONLY_BOUNDS_OVERRUN).
bool bounds_check_is_broken_for_test();

}  // namespace rnicsim
