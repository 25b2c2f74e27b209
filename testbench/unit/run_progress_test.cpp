// The progress line a long run rewrites on a terminal (common/run_progress).
#include "common/run_progress.hpp"

#include <gtest/gtest.h>

namespace rnicsim {
namespace {

TEST(ProgressLine, CountsRateAndTimeLeft) {
  // 1234567 Data in 1.9 s: 649772 a second, 13.49 s for the 8765433 left.
  EXPECT_EQ(progress_line(1.2e6, 1234567, 10000000, "Data", 1.9, ""),
            "rnicsim: 1.2 ms simulated | 1234567 of 10000000 Data (12%) | 650k Data/s | "
            "about 13.5 s left");
}

TEST(ProgressLine, ANoteSaysWhichPartIsRunning) {
  // perf -a: 5000 of 23 sizes x 1000 iterations in 2 s, size 6 running.
  EXPECT_EQ(progress_line(3.1e6, 5000, 23000, "iterations", 2.0, "size 6 of 23: 64 B"),
            "rnicsim: 3.1 ms simulated | 5000 of 23000 iterations (21%) | size 6 of 23: 64 B | "
            "2.5k iterations/s | about 7.2 s left");
}

TEST(ProgressLine, NoTimeLeftWithoutARateOrWhenDone) {
  EXPECT_EQ(progress_line(0, 0, 100, "transfers", 0, ""),
            "rnicsim: 0 ns simulated | 0 of 100 transfers (0%) | 0 transfers/s");
  EXPECT_EQ(progress_line(12345, 100, 100, "transfers", 4, ""),
            "rnicsim: 12.3 us simulated | 100 of 100 transfers (100%) | 25 transfers/s");
}

}  // namespace
}  // namespace rnicsim
