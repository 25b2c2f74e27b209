#include "program/experiments/translation/translation_outputs.hpp"

#include <string>

#include <nlohmann/json.hpp>

#include "program/experiments/output_files.hpp"

namespace rnicsim {

void write_translation_outputs(const TranslationTestConfig& config,
                               const TranslationTestResult& result,
                               const std::filesystem::path& folder) {
  using Json = nlohmann::json;
  Json points = Json::array();
  std::string csv =
      "cache_entries,working_set_pages,hit_rate,mpt_hit_rate,mean_translate_ns,"
      "p99_translate_ns,translations_per_us,walks,merges,mean_walk_ns,p99_walk_ns\n";
  for (const TranslationPoint& p : result.points) {
    points.push_back({{"cache_entries", p.cache_entries},
                      {"working_set_pages", p.working_set_pages},
                      {"hit_rate", p.hit_rate},
                      {"mpt_hit_rate", p.mpt_hit_rate},
                      {"mean_translate_ns", p.mean_translate_ns},
                      {"p99_translate_ns", p.p99_translate_ns},
                      {"translations_per_us", p.translations_per_us},
                      {"walks", p.walks},
                      {"merges", p.merges},
                      {"mean_walk_ns", p.mean_walk_ns},
                      {"p99_walk_ns", p.p99_walk_ns}});
    csv += std::to_string(p.cache_entries) + "," + std::to_string(p.working_set_pages) + "," +
           number_text(p.hit_rate) + "," + number_text(p.mpt_hit_rate) + "," +
           number_text(p.mean_translate_ns) + "," + number_text(p.p99_translate_ns) + "," +
           number_text(p.translations_per_us) + "," + std::to_string(p.walks) + "," +
           std::to_string(p.merges) + "," + number_text(p.mean_walk_ns) + "," +
           number_text(p.p99_walk_ns) + "\n";
  }
  const Json summary = {{"schema", "rnicsim.translation.summary/1"},
                        {"experiment", "translation"},
                        {"pattern", config.sequential ? "sequential" : "random"},
                        {"mrs", config.mrs},
                        {"pages_per_mr", config.pages_per_mr},
                        {"mr_bytes", config.mr_bytes},
                        {"page_bytes", config.page_bytes},
                        {"in_flight", config.in_flight},
                        {"points", points}};
  write_text(folder / "summary.json", summary.dump(2) + "\n");
  write_text(folder / "translation.csv", csv);
  write_text(folder / "statistics.json", result.statistics.dump(2) + "\n");
}

}  // namespace rnicsim
