// The project schema: it builds (every default passes its own checks), and
// configs/README.md documents every key it holds.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "experiments/experiments.hpp"

namespace rnicsim {
namespace {

TEST(RnicsimSchema, EveryKeyIsDocumentedInConfigsReadme) {
  std::ifstream file(std::string(RNICSIM_SOURCE_DIR) + "/configs/README.md");
  ASSERT_TRUE(file) << "configs/README.md is missing";
  std::stringstream text;
  text << file.rdbuf();
  for (const config::KeySpec& key : rnicsim_schema().keys()) {
    EXPECT_NE(text.str().find("| " + key.path + " |"), std::string::npos)
        << key.path << " is not in configs/README.md (rnicsim keys prints the table)";
  }
}

TEST(RnicsimSchema, TheSeedConfigIsValidAndNamesEveryPipelineKey) {
  const config::Json doc =
      config::read_json_file(std::string(RNICSIM_SOURCE_DIR) + "/configs/seed_pipeline.json");
  EXPECT_NO_THROW(config::validate(doc, rnicsim_schema(), "seed_pipeline.json"));
  EXPECT_EQ(doc.at("link").at("framing"), "none");
}

}  // namespace
}  // namespace rnicsim
