// The translation sweep on a small working set (4 MRs x 64 pages = 256 pages),
// from configs/translation_sweep.json with overrides.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "program/experiments/experiments.hpp"
#include "program/experiments/translation/translation_experiment.hpp"

namespace rnicsim {
namespace {

const std::string kSweep = std::string(RNICSIM_SOURCE_DIR) + "/configs/translation_sweep.json";

TranslationTestResult run(std::vector<std::string> overrides) {
  overrides.insert(overrides.end(),
                   {"translation_test.mrs=4", "translation_test.pages_per_mr=64",
                    "translation_test.accesses=4000", "translation_test.warmup_accesses=8000"});
  config::RunConfig doc(config::load_config(kSweep, overrides, rnicsim_schema()));
  RunProgress quiet;
  return run_translation_test(translation_test_config(doc), quiet);
}

TEST(TranslationSweep, HitRateFallsAndLatencyRisesAsTheWorkingSetOutgrowsTheCache) {
  const TranslationTestResult r = run({"translation_test.cache_entries=[32,64,128,256,512]"});
  ASSERT_EQ(r.points.size(), 5u);
  for (std::size_t i = 1; i < r.points.size(); ++i) {
    EXPECT_GE(r.points[i].hit_rate, r.points[i - 1].hit_rate);
    EXPECT_LE(r.points[i].mean_translate_ns, r.points[i - 1].mean_translate_ns);
  }
  // 8000 random warm-up accesses touch all 256 pages (the chance one is missed
  // is e^-31), so once the cache holds the working set every access hits and
  // takes the 4-cycle hit latency at 250 MHz.
  EXPECT_EQ(r.points[3].working_set_pages, 256u);
  EXPECT_DOUBLE_EQ(r.points[3].hit_rate, 1.0);
  EXPECT_DOUBLE_EQ(r.points[4].hit_rate, 1.0);
  EXPECT_DOUBLE_EQ(r.points[3].mean_translate_ns, 16.0);
  EXPECT_EQ(r.points[3].walks, 0u);
  // Random accesses with 32 of 256 pages cached hit about 32/256 = 12.5% of
  // the time; 0.05 covers the sampling spread of 4000 accesses and LRU sets.
  EXPECT_NEAR(r.points[0].hit_rate, 0.125, 0.05);
  // A miss costs a DMA read over PCIe (~550 ns): p99 shows it until the working set fits.
  // Every walk is the same 8 B read on an otherwise idle link, so its mean is its p99.
  EXPECT_GT(r.points[2].p99_translate_ns, 500.0);
  EXPECT_GT(r.points[0].mean_walk_ns, 500.0);
  EXPECT_NEAR(r.points[0].mean_walk_ns, r.points[0].p99_walk_ns, 1e-6);
  EXPECT_DOUBLE_EQ(r.points[3].mean_walk_ns, 0.0);
}

TEST(TranslationSweep, SequentialAccessesThrashAnLruCacheSmallerThanTheWorkingSet) {
  // Page after page over 256 pages: each of the 16 sets of an 8-way, 128-entry
  // cache sees 16 pages in turn, and LRU always evicts the one needed next,
  // so nothing hits; with room for all 256 everything hits.
  const TranslationTestResult r =
      run({"translation_test.pattern=sequential", "translation_test.cache_entries=[128,256]"});
  EXPECT_DOUBLE_EQ(r.points[0].hit_rate, 0.0);
  EXPECT_DOUBLE_EQ(r.points[1].hit_rate, 1.0);
}

TEST(TranslationSweep, OneTranslationInFlightTakesTheSumOfItsLatencies) {
  // Each request waits for the one before: the measured time is the sum of
  // the latencies, so the rate is their mean's inverse (to rounding).
  const TranslationTestResult r = run({"translation_test.cache_entries=[64,512]"});
  for (const TranslationPoint& p : r.points) {
    EXPECT_NEAR(p.translations_per_us * p.mean_translate_ns / 1000.0, 1.0, 1e-9);
    EXPECT_EQ(p.merges, 0u);
  }
}

// Sequential accesses through a cache half the working set all miss their
// MTT entry, and 16 requests in flight keep every walk slot busy: throughput
// is the slots over a walk's time (Little's law), and each request waits 16
// requests' worth of it. The 0.5 % covers the measured window's two edges
// (the first lookups, the last walks draining), about 600 ns of 140 us or more.
TranslationPoint all_miss_with_walk_slots(int slots) {
  const TranslationTestResult r = run(
      {"translation_test.pattern=sequential", "translation_test.cache_entries=[128]",
       "translation_test.in_flight=16", "translation.walker_outstanding=" + std::to_string(slots)});
  return r.points.at(0);
}

TEST(TranslationSweep, OneWalkSlotServesOneMissPerWalk) {
  const TranslationPoint p = all_miss_with_walk_slots(1);
  EXPECT_DOUBLE_EQ(p.hit_rate, 0.0);
  EXPECT_EQ(p.walks, 4000u);
  EXPECT_NEAR(p.translations_per_us * p.mean_walk_ns / 1000.0, 1.0, 0.005);
  EXPECT_NEAR(p.translations_per_us * p.mean_translate_ns / 1000.0, 16.0, 16 * 0.005);
}

TEST(TranslationSweep, FourWalkSlotsServeFourMissesPerWalk) {
  const TranslationPoint p = all_miss_with_walk_slots(4);
  EXPECT_DOUBLE_EQ(p.hit_rate, 0.0);
  EXPECT_EQ(p.walks, 4000u);
  EXPECT_NEAR(p.translations_per_us * p.mean_walk_ns / 1000.0, 4.0, 4 * 0.005);
  EXPECT_NEAR(p.translations_per_us * p.mean_translate_ns / 1000.0, 16.0, 16 * 0.005);
  // The walks overlap on the link without slowing each other much: four
  // slots give close to four times one slot's 1 / 559 ns.
  EXPECT_GT(p.translations_per_us, 3.9 * 1000.0 / 559.055);
}

}  // namespace
}  // namespace rnicsim
