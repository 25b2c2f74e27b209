#pragma once
// Statistics: one interface for every block's counters.
//
// A block keeps its counters in a plain struct (TransportStats, ...), cheap
// to bump on the hot path, and declares once, beside it, a StatisticsTable:
// for each counter its name, unit and one-line meaning and the field that
// holds it. The testbed collects every block's table into one document
// (Testbed::statistics, statistics.json beside every testbed run); perf.json's
// counters are taken from it; and each block README's statistics table is
// the table's markdown(), checked by testbench/unit/statistics_test.cpp.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <systemc>

#include "common/time_units.hpp"

namespace rnicsim {

// What one statistic is: its name in statistics.json and perf.json, its unit
// ("packets", "bytes", "ns", ...) and what it counts.
struct Statistic {
  std::string name;
  std::string unit;
  std::string meaning;
};

template <typename Stats>
class StatisticsTable {
 public:
  // A counter (std::uint64_t) or an accumulated time (sc_time, given in ns).
  struct Row {
    Row(const char* name, const char* unit, std::uint64_t Stats::*field, const char* meaning)
        : statistic{name, unit, meaning}, count(field) {}
    Row(const char* name, sc_core::sc_time Stats::*field, const char* meaning)
        : statistic{name, "ns", meaning}, time(field) {}
    Statistic statistic;
    std::uint64_t Stats::*count = nullptr;
    sc_core::sc_time Stats::*time = nullptr;
  };

  // `block` names the block's entry in statistics.json ("transport").
  StatisticsTable(std::string block, std::vector<Row> rows)
      : block_(std::move(block)), rows_(std::move(rows)) {}

  const std::string& block() const { return block_; }

  // {name: value}: counts as integers, times in ns.
  nlohmann::json values(const Stats& stats) const {
    nlohmann::json out = nlohmann::json::object();
    for (const Row& row : rows_) {
      if (row.count != nullptr) {
        out[row.statistic.name] = stats.*row.count;
      } else {
        out[row.statistic.name] = to_ns(stats.*row.time);
      }
    }
    return out;
  }

  std::vector<Statistic> statistics() const {
    std::vector<Statistic> out;
    for (const Row& row : rows_) out.push_back(row.statistic);
    return out;
  }

 private:
  std::string block_;
  std::vector<Row> rows_;
};

// A block's statistics as its README shows them:
//   | statistic | unit | meaning |
//   |---|---|---|
//   | `doorbells` | doorbells | ... |
std::string statistics_markdown(const std::vector<Statistic>& statistics);

// Statistics documents (Testbed::statistics) combined leaf by leaf: `a` plus
// `sign` x `b` for every count and time, so a run's statistics less a
// warm-up's are those of its measured part; a peak (a statistic with "peak"
// in its name) is not additive and keeps `a`'s value.
nlohmann::json statistics_combined(const nlohmann::json& a, const nlohmann::json& b, int sign);

struct StageStats;
// A pipeline stage's counters as a wire reports them: frames, bits, busy time.
const StatisticsTable<StageStats>& wire_stage_statistics();

}  // namespace rnicsim
