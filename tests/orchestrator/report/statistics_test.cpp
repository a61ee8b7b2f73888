#include "orchestrator/report/statistics.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace topolab::report {
namespace {

TEST(Statistics, MedianOddEvenAndEmpty) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_TRUE(std::isnan(median({})));
}

TEST(Statistics, MinMaxMean) {
  std::vector<double> v{2, 8, 5};
  EXPECT_DOUBLE_EQ(min_of(v), 2);
  EXPECT_DOUBLE_EQ(max_of(v), 8);
  EXPECT_DOUBLE_EQ(mean(v), 5);
  EXPECT_TRUE(std::isnan(mean({})));
}

TEST(Statistics, CoefficientOfVariationUsesSampleStddev) {
  // mean 5, sample stddev sqrt(((9)+(9)+0)/2) = 3
  EXPECT_DOUBLE_EQ(cv({2, 8, 5}), 3.0 / 5.0);
  EXPECT_DOUBLE_EQ(cv({7}), 0.0);
  EXPECT_DOUBLE_EQ(cv({4, 4, 4}), 0.0);
}

TEST(Statistics, PenaltyPercent) {
  EXPECT_DOUBLE_EQ(penalty_percent(1.25, 1.0), 25.0);
  EXPECT_NEAR(penalty_percent(0.9, 1.0), -10.0, 1e-12);
  EXPECT_TRUE(std::isnan(penalty_percent(1.0, 0.0)));
}

TEST(Statistics, BootstrapCiIsReproducibleAndBracketsThePenalty) {
  std::vector<double> base{1.00, 1.02, 0.98, 1.01, 0.99};
  std::vector<double> cell{1.20, 1.25, 1.18, 1.22, 1.30};
  auto a = bootstrap_penalty_ci(cell, base);
  auto b = bootstrap_penalty_ci(cell, base);
  EXPECT_DOUBLE_EQ(a.low, b.low);
  EXPECT_DOUBLE_EQ(a.high, b.high);
  double p = penalty_percent(median(cell), median(base));
  EXPECT_LE(a.low, p);
  EXPECT_GE(a.high, p);
  EXPECT_GT(a.low, 10.0);  // clearly slower than the baseline
  EXPECT_LT(a.high, 35.0);
  // Pinned values for seed 42: a change in the resampling must be deliberate.
  EXPECT_NEAR(a.low, 17.6470588, 1e-6) << a.low;
  EXPECT_NEAR(a.high, 30.0, 1e-6) << a.high;
  // A narrower confidence level gives a narrower (or equal) interval.
  auto narrow = bootstrap_penalty_ci(cell, base, 0.5);
  EXPECT_GE(narrow.low, a.low);
  EXPECT_LE(narrow.high, a.high);
}

TEST(Statistics, BootstrapCiOfIdenticalSamplesIsAPoint) {
  auto ci = bootstrap_penalty_ci({2, 2, 2}, {1, 1, 1});
  EXPECT_DOUBLE_EQ(ci.low, 100.0);
  EXPECT_DOUBLE_EQ(ci.high, 100.0);
  EXPECT_TRUE(std::isnan(bootstrap_penalty_ci({}, {1}).low));
}

}  // namespace
}  // namespace topolab::report
