#pragma once
#include <string>

#include "config/config.hpp"
#include "mtt/memory_translation.hpp"

namespace rnicsim {

void declare_mtt_keys(config::Schema& schema);
// The translation unit's configuration, its tables placed at `icm_base`.
// Throws config::ConfigError (naming `source`) when ways do not divide entries.
MemoryTranslationConfig memory_translation_config(const config::Json& doc,
                                                  std::uint64_t icm_base,
                                                  const std::string& source);

}  // namespace rnicsim
