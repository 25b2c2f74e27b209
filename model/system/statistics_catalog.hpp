#pragma once
// Every block's statistics table with the README that documents it: what
// `rnicsim statistics` prints and testbench/unit/statistics_test.cpp holds
// each README to (its tables are generated, never hand-written).
#include <string>
#include <vector>

#include "common/statistics.hpp"

namespace rnicsim {

struct DocumentedStatistics {
  std::string readme;  // from the source root: "model/nic/transport/README.md"
  std::string block;   // its entry in statistics.json: "transport"
  std::vector<Statistic> statistics;
};

std::vector<DocumentedStatistics> statistics_catalog();

// The README text of one block's table: a line naming the block, a blank
// line, then statistics_markdown().
std::string statistics_readme_text(const DocumentedStatistics& entry);

}  // namespace rnicsim
