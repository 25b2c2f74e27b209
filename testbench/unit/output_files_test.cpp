// number_text: the text every output file gives a number, nlohmann's dump
// without a trailing ".0"; whole values take a shorter path that must agree.
#include "program/experiments/output_files.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

namespace rnicsim {
namespace {

std::string dumped(double value) {
  std::string text = nlohmann::json(value).dump();
  if (text.size() > 2 && text.compare(text.size() - 2, 2, ".0") == 0) text.resize(text.size() - 2);
  return text;
}

TEST(NumberText, WholeValuesReadAsTheirDumpDoes) {
  for (std::int64_t v = -10000; v <= 100000; ++v) {
    ASSERT_EQ(number_text(static_cast<double>(v)), dumped(static_cast<double>(v))) << v;
  }
  std::mt19937_64 random(5);
  for (int i = 0; i < 20000; ++i) {
    // Whole values of every magnitude up to 10^16, both signs, ten and
    // 1024 times them, and each moved to just below 10^15 and past it.
    const auto v = static_cast<double>(random() % 10000000000000000ULL >> (random() % 54));
    for (const double w : {v, -v, v * 10, v * 1024, v + 1e15 - 1}) {
      ASSERT_EQ(number_text(w), dumped(w)) << w;
    }
  }
  EXPECT_EQ(number_text(0.0), "0");
  EXPECT_EQ(number_text(-0.0), "-0");
  EXPECT_EQ(number_text(999999999999999.0), "999999999999999");
  EXPECT_EQ(number_text(1e15), dumped(1e15));  // past the short path: the dump's own form
}

TEST(NumberText, FractionsAndOddValuesAreTheDump) {
  for (const double v :
       {0.5, -0.25, 32.768, 12.5, 1e-5, 1.0 / 3, 1e300, -1e-300,
        std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::quiet_NaN()}) {
    EXPECT_EQ(number_text(v), dumped(v)) << v;
  }
  EXPECT_EQ(number_text(32.768), "32.768");
  EXPECT_EQ(number_text(std::numeric_limits<double>::infinity()), "null");
}

}  // namespace
}  // namespace rnicsim
