// The statistics interface (common/statistics.hpp): a table reads its
// block's counters by name, and every block README holds its tables exactly
// as `rnicsim statistics` prints them.
#include "common/statistics.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "nic/transport/transport_shared.hpp"
#include "system/statistics_catalog.hpp"
#include "wire/fault_injector.hpp"

namespace rnicsim {
namespace {

const std::string kSourceDir = RNICSIM_SOURCE_DIR;

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(Statistics, ATableReadsEachCounterUnderItsName) {
  TransportStats stats;
  stats.doorbells = 3;
  stats.duplicate_requests = 7;
  stats.stale_naks = 11;
  stats.activations = 99;  // the simulator's own work, not a statistic of the NIC
  const nlohmann::json values = transport_statistics().values(stats);
  EXPECT_EQ(values.at("doorbells"), 3);
  EXPECT_EQ(values.at("duplicate_request"), 7);  // mlx5's name
  EXPECT_EQ(values.at("stale_naks"), 11);
  EXPECT_EQ(values.at("cqes"), 0);
  EXPECT_FALSE(values.contains("activations"));
  EXPECT_EQ(values.size(), transport_statistics().statistics().size());
}

TEST(Statistics, ATimeIsGivenInNanoseconds) {
  MemoryTranslationStats stats;
  stats.walk_time = sc_core::sc_time(1.5, sc_core::SC_US);
  EXPECT_DOUBLE_EQ(translation_statistics().values(stats).at("walk_ns").get<double>(), 1500.0);
}

TEST(Statistics, MarkdownHasOneRowPerStatistic) {
  EXPECT_EQ(statistics_markdown({{"lost", "frames", "lost on the cable"}}),
            "| statistic | unit | meaning |\n|---|---|---|\n| `lost` | frames | lost on the cable |\n");
}

// A run's statistics less its warm-up's: counts and times leaf by leaf,
// peaks kept, a count never below zero, names only one side has kept as is.
TEST(Statistics, CombinedLeafByLeafKeepingPeaks) {
  const nlohmann::json run = {
      {"nodes",
       {{"a",
         {{"frames", 10u}, {"busy_ns", 7.5}, {"queue_peak_bytes", 900u}, {"only_here", 3u}}}}}};
  const nlohmann::json warmup = {
      {"nodes", {{"a", {{"frames", 4u}, {"busy_ns", 2.5}, {"queue_peak_bytes", 1200u}}}}}};
  const nlohmann::json measured = statistics_combined(run, warmup, -1);
  const nlohmann::json& a = measured["nodes"]["a"];
  EXPECT_EQ(a["frames"].get<std::uint64_t>(), 6u);
  EXPECT_DOUBLE_EQ(a["busy_ns"].get<double>(), 5.0);
  EXPECT_EQ(a["queue_peak_bytes"].get<std::uint64_t>(), 900u);
  EXPECT_EQ(a["only_here"].get<std::uint64_t>(), 3u);
  EXPECT_EQ(statistics_combined(warmup, run, -1)["nodes"]["a"]["frames"].get<std::uint64_t>(), 0u);
  const nlohmann::json both = statistics_combined(run, warmup, +1);
  EXPECT_EQ(both["nodes"]["a"]["frames"].get<std::uint64_t>(), 14u);
  EXPECT_DOUBLE_EQ(both["nodes"]["a"]["busy_ns"].get<double>(), 10.0);
}

// Every statistic has a unit and a meaning, and its name is unique in its block.
TEST(Statistics, EveryStatisticHasAUnitAMeaningAndAUniqueName) {
  for (const DocumentedStatistics& entry : statistics_catalog()) {
    std::set<std::string> names;
    for (const Statistic& s : entry.statistics) {
      EXPECT_FALSE(s.unit.empty()) << entry.block << "." << s.name;
      EXPECT_FALSE(s.meaning.empty()) << entry.block << "." << s.name;
      EXPECT_TRUE(names.insert(s.name).second) << entry.block << "." << s.name << " twice";
    }
  }
}

// The README tables are generated: `rnicsim statistics` prints them.
TEST(Statistics, EveryBlockReadmeHoldsItsTablesAsGenerated) {
  for (const DocumentedStatistics& entry : statistics_catalog()) {
    const std::string readme = read_text(kSourceDir + "/" + entry.readme);
    ASSERT_FALSE(readme.empty()) << entry.readme;
    const std::size_t section = readme.find("\n## Statistics\n");
    ASSERT_NE(section, std::string::npos) << entry.readme << " has no \"## Statistics\" section";
    EXPECT_NE(readme.find(statistics_readme_text(entry), section), std::string::npos)
        << entry.readme << " does not hold the table of " << entry.block
        << " as `rnicsim statistics` prints it:\n"
        << statistics_readme_text(entry);
  }
}

}  // namespace
}  // namespace rnicsim
