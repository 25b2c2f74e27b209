#pragma once
// Files the translation experiment writes into its output folder:
//   summary.json     the points (schema in results/README.md)
//   translation.csv  one row per cache size
#include <filesystem>

#include "program/experiments/translation/translation_experiment.hpp"

namespace rnicsim {

void write_translation_outputs(const TranslationTestConfig& config,
                               const TranslationTestResult& result,
                               const std::filesystem::path& folder);

}  // namespace rnicsim
