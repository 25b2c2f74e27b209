// The project schema: it builds (every default passes its own checks), every
// preset passes it, and configs/README.md documents exactly its keys. The
// README's table is parsed here on its own, not compared with markdown_table(),
// so a table printed wrongly by both would still be caught.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "program/experiments/experiments.hpp"

namespace rnicsim {
namespace {

namespace fs = std::filesystem;

const std::string kSourceDir = RNICSIM_SOURCE_DIR;

std::string read_text(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// The cells of one Markdown table row: split at '|' except "\|", trimmed.
std::vector<std::string> row_cells(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  for (std::size_t i = 1; i < line.size(); ++i) {  // past the leading '|'
    if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '|') {
      cell += '|';
      ++i;
    } else if (line[i] == '|') {
      const auto first = cell.find_first_not_of(' ');
      const auto last = cell.find_last_not_of(' ');
      cells.push_back(first == std::string::npos ? "" : cell.substr(first, last - first + 1));
      cell.clear();
    } else {
      cell += line[i];
    }
  }
  return cells;
}

// configs/README.md's key table: key -> its six cells.
std::map<std::string, std::vector<std::string>> readme_rows() {
  std::istringstream text(read_text(kSourceDir + "/configs/README.md"));
  std::map<std::string, std::vector<std::string>> rows;
  std::string line;
  bool in_table = false;
  while (std::getline(text, line)) {
    if (line.rfind("| key | type | unit | default | range | meaning |", 0) == 0) {
      in_table = true;
      std::getline(text, line);  // the | --- | row
      continue;
    }
    if (!in_table) continue;
    if (line.empty() || line[0] != '|') break;
    const std::vector<std::string> cells = row_cells(line);
    EXPECT_EQ(cells.size(), 6U) << line;
    EXPECT_EQ(rows.count(cells.at(0)), 0U) << cells.at(0) << " is listed twice";
    rows[cells.at(0)] = cells;
  }
  return rows;
}

std::string expected_type(config::ValueKind kind) {
  switch (kind) {
    case config::ValueKind::kBoolean: return "boolean";
    case config::ValueKind::kInteger: return "integer";
    case config::ValueKind::kNumber: return "number";
    case config::ValueKind::kString: return "string";
    case config::ValueKind::kIntegerList: return "integer list";
    case config::ValueKind::kStringList: return "string list";
  }
  return "?";
}

std::string bound(double value) {
  char text[40];
  if (std::floor(value) == value) {
    std::snprintf(text, sizeof text, "%.0f", value);
  } else {
    std::snprintf(text, sizeof text, "%g", value);
  }
  return text;
}

// The range as a reader expects it from the declaration, written out here
// independently of config.cpp's range_text().
std::string expected_range(const config::KeySpec& spec) {
  std::vector<std::string> parts;
  if (!spec.choices.empty() || !spec.integer_choices.empty()) {
    std::string list;
    for (const auto& choice : spec.choices) list += (list.empty() ? "" : ", ") + choice;
    for (const auto choice : spec.integer_choices) {
      list += (list.empty() ? "" : ", ") + std::to_string(choice);
    }
    parts.push_back("one of " + list);
  } else {
    if (spec.min) parts.push_back((spec.min_exclusive ? "> " : ">= ") + bound(*spec.min));
    if (spec.max) parts.push_back("<= " + bound(*spec.max));
  }
  if (spec.must_be_power_of_two) parts.push_back("power of two");
  std::string range;
  for (const auto& part : parts) range += (range.empty() ? "" : ", ") + part;
  return range;
}

TEST(RnicsimSchema, ConfigsReadmeTableListsExactlyTheSchemaKeys) {
  const auto rows = readme_rows();
  ASSERT_FALSE(rows.empty()) << "no key table found in configs/README.md";
  const config::Schema& schema = rnicsim_schema();
  for (const config::KeySpec& spec : schema.keys()) {
    const auto row = rows.find(spec.path);
    if (row == rows.end()) {
      ADD_FAILURE() << spec.path << " is not in configs/README.md (rnicsim keys prints the table)";
      continue;
    }
    const std::vector<std::string>& cells = row->second;
    EXPECT_EQ(cells[1], expected_type(spec.kind)) << spec.path;
    EXPECT_EQ(cells[2], spec.unit) << spec.path;
    EXPECT_EQ(config::Json::parse(cells[3]), spec.default_value) << spec.path;
    EXPECT_EQ(cells[4], expected_range(spec)) << spec.path;
    EXPECT_EQ(cells[5], spec.doc) << spec.path;
  }
  for (const auto& [key, cells] : rows) {
    EXPECT_NE(schema.find(key), nullptr) << key << " is in configs/README.md but is no key";
  }
}

TEST(RnicsimSchema, EveryPresetLoads) {
  std::vector<std::string> presets;
  for (const auto& entry : fs::directory_iterator(kSourceDir + "/configs")) {
    if (entry.path().extension() == ".json") presets.push_back(entry.path().string());
  }
  ASSERT_GE(presets.size(), 6U);
  for (const auto& preset : presets) {
    EXPECT_NO_THROW(config::load(preset, {}, rnicsim_schema())) << preset;
  }
  // The seed figure's premise: payload bits only on the wire.
  const config::Json seed =
      config::load(kSourceDir + "/configs/seed_pipeline.json", {}, rnicsim_schema());
  EXPECT_EQ(config::at_path(seed, "link.framing"), "none");
}

// Every rule between keys holds for the defaults, whichever experiment runs.
TEST(RnicsimSchema, DefaultsPassEveryRuleForEveryExperiment) {
  const config::Schema& schema = rnicsim_schema();
  EXPECT_FALSE(schema.checks().empty());
  for (const auto& experiment : schema.find("experiment")->choices) {
    EXPECT_NO_THROW(config::validate(config::Json{{"experiment", experiment}}, schema, "t"))
        << experiment;
  }
}

// Each experiment checks every key by the same rules, not only the keys it
// reads: a pipeline run refuses what a dma or translation run refuses.
TEST(RnicsimSchema, EveryExperimentChecksEveryKey) {
  const config::Schema& schema = rnicsim_schema();
  const std::vector<std::pair<config::Json, std::string>> bad = {
      {{{"pcie", {{"lanes", 3}}}}, "pcie.lanes"},
      {{{"host", {{"page_bytes", 8192}}}}, "host.page_bytes"},
      {{{"pcie", {{"mps_bytes", 384}}}}, "pcie.mps_bytes"},
      {{{"pcie", {{"mps_bytes", 128}, {"completion_bytes", 256}}}}, "pcie.completion_bytes"},
      {{{"translation", {{"mtt_cache_entries", 4096}, {"mtt_cache_ways", 3}}}},
       "translation.mtt_cache_ways"},
      {{{"translation_test", {{"access_bytes", 96}}}}, "translation_test.access_bytes"},
      {{{"nodes", {{"b", {{"pcie", {{"lanes", 3}}}}}}}}, "nodes.b.pcie.lanes"},
      {{{"nodes", {{"b", {{"pcie", {{"rcb_bytes", 128}, {"completion_bytes", 64}}}}}}}},
       "nodes.b.pcie.completion_bytes"},
  };
  for (const auto& experiment : schema.find("experiment")->choices) {
    for (const auto& [doc, key] : bad) {
      config::Json with_experiment = doc;
      with_experiment["experiment"] = experiment;
      try {
        config::validate(with_experiment, schema, "t");
        ADD_FAILURE() << experiment << " accepts " << doc.dump();
      } catch (const config::ConfigError& error) {
        // The sweep sets the MTT cache size itself and checks its sizes against the ways.
        const std::string expected =
            experiment == "translation" && key == "translation.mtt_cache_ways"
                ? "translation_test.cache_entries"
                : key;
        EXPECT_EQ(error.key(), expected) << experiment << ": " << error.what();
      }
    }
  }
}

// A key renamed when its block took one name is refused wherever it is given,
// naming the new name: on the command line, per node, and in a config file.
TEST(RnicsimSchema, ARenamedKeyIsRefusedNamingItsNewName) {
  const config::Schema& schema = rnicsim_schema();
  const auto set_error = [&](const std::string& assignment) {
    config::Json doc = config::Json::object();
    try {
      config::apply_override(doc, assignment, schema);
    } catch (const config::ConfigError& error) {
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  const std::string list = "; configs/README.md lists the renames)";
  EXPECT_EQ(set_error("mtt.hit_cycles=5"),
            "--set mtt.hit_cycles=5: mtt.hit_cycles: unknown key (did you mean "
            "'translation.hit_cycles'? renamed from 'mtt.hit_cycles'" + list);
  EXPECT_EQ(set_error("request_split.impl=rtl"),
            "--set request_split.impl=rtl: request_split.impl: unknown key (did you mean "
            "'request_splitter.impl'? renamed from 'request_split.impl'" + list);
  EXPECT_EQ(set_error("translation.accesses=10"),
            "--set translation.accesses=10: translation.accesses: unknown key (did you mean "
            "'translation_test.accesses'? renamed from 'translation.accesses'" + list);
  EXPECT_EQ(set_error("nodes.b.mtt.mtt_cache_impl=rtl"),
            "--set nodes.b.mtt.mtt_cache_impl=rtl: nodes.b.mtt.mtt_cache_impl: unknown key (did "
            "you mean 'nodes.b.translation.mtt_cache_impl'? renamed from "
            "'nodes.b.mtt.mtt_cache_impl'" + list);
  EXPECT_EQ(set_error("translation.hit_cycles=5"), "accepted");
  // A typo under an old name gets the nearest new key, not a name that does not exist.
  EXPECT_EQ(set_error("mtt.hit_cycle=5"),
            "--set mtt.hit_cycle=5: mtt.hit_cycle: unknown key (did you mean "
            "'translation.hit_cycles'?)");
  // A renamed key that is not a node section's is not suggested per node.
  EXPECT_EQ(set_error("nodes.b.translation.mrs=4"),
            "--set nodes.b.translation.mrs=4: nodes.b.translation.mrs: unknown key (now "
            "'translation_test.mrs', which is not given per node; renamed from "
            "'nodes.b.translation.mrs'" + list);

  const auto file_error = [&](const config::Json& doc) {
    try {
      config::validate(doc, schema, "f.json");
    } catch (const config::ConfigError& error) {
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(file_error({{"mtt", {{"hit_cycles", 5}}}}),
            "f.json: mtt: unknown key (did you mean 'translation'? renamed from 'mtt'" + list);
  EXPECT_EQ(file_error({{"translation", {{"mrs", 4}}}}),
            "f.json: translation.mrs: unknown key (did you mean 'translation_test.mrs'? renamed "
            "from 'translation.mrs'" + list);
  EXPECT_EQ(file_error({{"nodes", {{"b", {{"request_split", {{"impl", "rtl"}}}}}}}}),
            "f.json: nodes.b.request_split: unknown key (did you mean "
            "'nodes.b.request_splitter'? renamed from 'nodes.b.request_split'" + list);
}

// configs/README.md's table of renames lists each of the schema's, old and new.
TEST(RnicsimSchema, ConfigsReadmeListsEveryRename) {
  const std::string readme = read_text(kSourceDir + "/configs/README.md");
  const std::size_t start = readme.find("## Renamed keys");
  ASSERT_NE(start, std::string::npos);
  const std::string section = readme.substr(start, readme.find("\n## ", start + 1) - start);
  for (const auto& [old_path, new_path] : rnicsim_schema().renames()) {
    // A section's rename is listed as `old.*`; the experiment's keys by their last part.
    const std::string last = old_path.substr(old_path.rfind('.') + 1);
    const bool is_section = old_path.find('.') == std::string::npos;
    const std::string shown = "`" + (is_section ? old_path + ".*" : last) + "`";
    EXPECT_NE(section.find(shown), std::string::npos) << old_path << " -> " << new_path;
    const std::string new_section = new_path.substr(0, new_path.find('.'));
    EXPECT_NE(section.find("`" + new_section + ".*`"), std::string::npos) << new_path;
  }
  EXPECT_FALSE(rnicsim_schema().renames().empty());
}

}  // namespace
}  // namespace rnicsim
