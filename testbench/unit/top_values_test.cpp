// TopValues: exact nearest-rank high percentiles from the largest samples
// only, checked against sorting every sample.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "common/top_values.hpp"

namespace rnicsim {
namespace {

// The nearest-rank percentile by its definition: sort, take rank ceil(p n).
double sorted_percentile(std::vector<double> samples, double p) {
  std::sort(samples.begin(), samples.end());
  const auto rank = static_cast<std::size_t>(std::ceil(p * static_cast<double>(samples.size())));
  return samples[std::max<std::size_t>(rank, 1) - 1];
}

TEST(TopValues, EqualsTheSortedPercentileForAnyCountUpToItsCapacity) {
  std::mt19937_64 random(5);
  for (const std::size_t n : {1u, 2u, 99u, 100u, 101u, 1000u, 12345u}) {
    std::vector<double> samples;
    // Few distinct values, as translation times are, so ties are exercised.
    for (std::size_t i = 0; i < n; ++i) samples.push_back(static_cast<double>(random() % 50));
    for (const double p : {0.5, 0.9, 0.99, 0.999, 1.0}) {
      TopValues top(TopValues::capacity_for(p, n));
      for (double s : samples) top.add(s);
      EXPECT_EQ(top.percentile(p), sorted_percentile(samples, p)) << "n " << n << " p " << p;
    }
  }
}

TEST(TopValues, KeepsAboutOnePercentOfTheSamplesForTheP99) {
  EXPECT_EQ(TopValues::capacity_for(0.99, 100000000), 1000002u);
  TopValues top(TopValues::capacity_for(0.99, 1000));
  for (int i = 0; i < 500; ++i) top.add(i);  // fewer samples than planned for
  EXPECT_EQ(top.percentile(0.99), 494.0);   // rank ceil(495) of 0..499
}

TEST(TopValues, RefusesWhatItCannotAnswer) {
  TopValues none(4);
  EXPECT_THROW(none.percentile(0.99), std::logic_error);
  TopValues small(2);
  for (int i = 0; i < 100; ++i) small.add(i);
  EXPECT_THROW(small.percentile(0.5), std::logic_error);  // needs the 51 largest
}

}  // namespace
}  // namespace rnicsim
