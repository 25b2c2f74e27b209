#include "common/statistics.hpp"

#include "common/stage.hpp"

namespace rnicsim {

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
