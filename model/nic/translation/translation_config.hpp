#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "config/config.hpp"
#include "config/run_config.hpp"
#include "nic/translation/memory_translation.hpp"

namespace rnicsim {

void declare_translation_keys(config::Schema& schema);
// Where the MPT and MTT tables sit in host memory, from `icm_base` on.
IcmLayout icm_layout(const config::Section& translation, std::uint64_t icm_base);
IcmLayout icm_layout(std::uint64_t mpt_entries, std::uint64_t mtt_entries, std::uint64_t icm_base);
// The translation unit's configuration from a node's "translation" section, its
// tables placed at `icm_base` (declare_translation_keys adds the rule that each
// cache's ways divide its entries). An experiment that sets the MTT cache
// size itself (the translation sweep, point by point) passes it as
// `mtt_cache_entries`, and translation.mtt_cache_entries is then not read.
MemoryTranslationConfig memory_translation_config(
    const config::Section& translation, std::uint64_t icm_base,
    std::optional<std::uint32_t> mtt_cache_entries = std::nullopt);

// The rule that a set-associative cache's ways divide its entries, for
// Schema::add_check (the transport's context caches use it too).
std::optional<config::Violation> ways_violation(const config::Json& doc, const char* ways_key,
                                                const char* entries_key);

}  // namespace rnicsim
