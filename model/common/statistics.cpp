#include "common/statistics.hpp"

#include "common/stage.hpp"

namespace rnicsim {

nlohmann::json statistics_combined(const nlohmann::json& a, const nlohmann::json& b, int sign) {
  nlohmann::json out = a;
  for (auto& item : out.items()) {
    const std::string& name = item.key();
    if (!b.contains(name)) continue;
    nlohmann::json& value = item.value();
    const nlohmann::json& other = b.at(name);
    if (value.is_object()) {
      value = statistics_combined(value, other, sign);
    } else if (name.find("peak") != std::string::npos) {
      continue;
    } else if (value.is_number_unsigned() && other.is_number_unsigned()) {
      const auto x = value.get<std::uint64_t>(), y = other.get<std::uint64_t>();
      value = sign > 0 ? x + y : (x >= y ? x - y : 0);
    } else if (value.is_number() && other.is_number()) {
      value = value.get<double>() + sign * other.get<double>();
    }
  }
  return out;
}

std::string statistics_markdown(const std::vector<Statistic>& statistics) {
  std::string table = "| statistic | unit | meaning |\n|---|---|---|\n";
  for (const Statistic& s : statistics) {
    table += "| `" + s.name + "` | " + s.unit + " | " + s.meaning + " |\n";
  }
  return table;
}

const StatisticsTable<StageStats>& wire_stage_statistics() {
  static const StatisticsTable<StageStats> table(
      "wire",
      {
          {"frames", "frames", &StageStats::items, "frames put on the wire"},
          {"bits", "bits", &StageStats::bits,
           "bits on the wire, framing (preamble, FCS, padding, gap) included"},
          {"busy_ns", &StageStats::busy, "time the wire carried a frame"},
      });
  return table;
}

}  // namespace rnicsim
