#include "orchestrator/run/experiment/hang_bound.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace topolab::experiment {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(RunBound, TheFirstRunOfACellWaitsTheWholeTimeout) {
  const RunBound b = run_bound(std::nullopt, seconds(600));
  EXPECT_EQ(b.wait, milliseconds(600'000));
  EXPECT_FALSE(b.hang_bound);
}

TEST(RunBound, TwentyTimesTheSlowestEarlierRunButAtLeastAMinute) {
  // A 1.2 s run: 24 s is under the floor, so 60 s.
  RunBound b = run_bound(1200.0, seconds(600));
  EXPECT_EQ(b.wait, milliseconds(60'000));
  EXPECT_TRUE(b.hang_bound);
  // A 4.5 s run: 90 s.
  b = run_bound(4500.0, seconds(600));
  EXPECT_EQ(b.wait, milliseconds(90'000));
  EXPECT_TRUE(b.hang_bound);
}

TEST(RunBound, NeverLongerThanTimeoutS) {
  RunBound b = run_bound(40'000.0, seconds(600));  // 800 s > 600 s
  EXPECT_EQ(b.wait, milliseconds(600'000));
  EXPECT_FALSE(b.hang_bound);
  b = run_bound(100.0, seconds(10));  // the floor exceeds a short timeout_s
  EXPECT_EQ(b.wait, milliseconds(10'000));
  EXPECT_FALSE(b.hang_bound);
}

TEST(RunBound, AnUnusableEarlierDurationFallsBackToTheTimeout) {
  for (double v : {std::nan(""), -1.0, std::numeric_limits<double>::infinity(), 1e300}) {
    const RunBound b = run_bound(v, seconds(600));
    EXPECT_EQ(b.wait, milliseconds(600'000)) << v;
    EXPECT_FALSE(b.hang_bound) << v;
  }
}

TEST(WaitedOut, AFailedStepThatUsedNineTenthsOfItsBoundWaitedItOut) {
  EXPECT_TRUE(waited_out(54'000.0, seconds(60)));  // exactly 0.9
  EXPECT_TRUE(waited_out(61'000.0, seconds(60)));  // past the bound (a slow timeout)
  EXPECT_FALSE(waited_out(53'999.0, seconds(60)));
  EXPECT_FALSE(waited_out(0.0, milliseconds(90'000)));  // failed at once: not a hang
  EXPECT_TRUE(waited_out(81'000.0, milliseconds(90'000)));
}

}  // namespace
}  // namespace topolab::experiment
