#pragma once
#include <string>

#include "config/config.hpp"
#include "mtt/memory_translation.hpp"

namespace rnicsim {

void declare_mtt_keys(config::Schema& schema);
// Where the MPT and MTT tables sit in host memory, from `icm_base` on.
IcmLayout icm_layout(const config::Json& doc, std::uint64_t icm_base);
// The translation unit's configuration, its tables placed at `icm_base`, from
// a configuration config::load has checked (declare_mtt_keys adds the rule
// that each cache's ways divide its entries).
MemoryTranslationConfig memory_translation_config(const config::Json& doc,
                                                  std::uint64_t icm_base);

}  // namespace rnicsim
