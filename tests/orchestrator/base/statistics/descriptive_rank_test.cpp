#include <gtest/gtest.h>

#include <cmath>

#include "orchestrator/base/statistics/bootstrap.hpp"
#include "orchestrator/base/statistics/descriptive.hpp"
#include "orchestrator/base/statistics/rank_test.hpp"

namespace topolab::statistics {
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

TEST(RankTest, NormalTailKnownValues) {
  EXPECT_DOUBLE_EQ(normal_sf(0), 0.5);
  EXPECT_NEAR(normal_sf(1.959963984540054), 0.025, 1e-12);
  EXPECT_NEAR(normal_sf(-1.0), 0.8413447460685429, 1e-12);
}

TEST(RankTest, ExactDistributionSumsToOneAndIsSymmetric) {
  auto d = exact_u_distribution(3, 3);  // C(6,3) = 20 arrangements, U in 0..9
  ASSERT_EQ(d.size(), 10u);
  EXPECT_DOUBLE_EQ(d[0], 1.0 / 20);
  EXPECT_DOUBLE_EQ(d[9], 1.0 / 20);
  EXPECT_DOUBLE_EQ(d[4], 3.0 / 20);  // 3 of the 20 (enumerated independently)
  double sum = 0;
  for (std::size_t k = 0; k < d.size(); ++k) {
    sum += d[k];
    EXPECT_DOUBLE_EQ(d[k], d[d.size() - 1 - k]);
  }
  EXPECT_NEAR(sum, 1.0, 1e-12);
  EXPECT_TRUE(exact_u_distribution(0, 3).empty());
  EXPECT_TRUE(exact_u_distribution(30, 30).empty());  // beyond kMaxExactRankSamples
}

// R's ?wilcox.test example (Hollander & Wolfe): W = 35, one-sided p = 0.1272, so the exact
// two-sided p is 0.2544.
TEST(RankTest, ExactMatchesRWilcoxTestExample) {
  std::vector<double> x{0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46};
  std::vector<double> y{1.15, 0.88, 0.90, 0.74, 1.21};
  auto t = mann_whitney_u(x, y);
  EXPECT_TRUE(t.exact);
  EXPECT_DOUBLE_EQ(t.u, 35);
  EXPECT_NEAR(t.p_value, 0.2544122544, 1e-9);
  auto swapped = mann_whitney_u(y, x);  // U of the other side, same two-sided p
  EXPECT_DOUBLE_EQ(swapped.u, 15);
  EXPECT_NEAR(swapped.p_value, t.p_value, 1e-12);
}

TEST(RankTest, CompleteSeparationOfThreeAgainstThree) {
  auto t = mann_whitney_u({1, 2, 3}, {4, 5, 6});
  EXPECT_TRUE(t.exact);
  EXPECT_DOUBLE_EQ(t.u, 0);
  EXPECT_NEAR(t.p_value, 0.1, 1e-12);  // 2 of C(6,3) = 20 arrangements are this extreme
  EXPECT_NEAR(t.min_p, 0.1, 1e-12);    // so 3 vs 3 can never reach p < 0.05
  EXPECT_NEAR(mann_whitney_u({1, 2, 3, 4}, {5, 6, 7, 8}).min_p, 2.0 / 70, 1e-12);
}

// Values from an independent brute-force / formula implementation (Python, same convention as
// scipy.stats.mannwhitneyu(method="asymptotic", use_continuity=True)).
TEST(RankTest, TiesUseNormalApproximationWithTieCorrection) {
  auto t = mann_whitney_u({1, 2, 2, 3, 3, 3, 4}, {3, 4, 4, 5, 5, 6});
  EXPECT_FALSE(t.exact);
  EXPECT_DOUBLE_EQ(t.u, 3.5);
  EXPECT_NEAR(t.p_value, 0.0129998544, 1e-9);
}

TEST(RankTest, NormalApproximationBeyondTheExactLimit) {
  std::vector<double> a, b;
  for (int i = 0; i < 30; ++i) a.push_back(i), b.push_back(i + 0.5);
  auto t = mann_whitney_u(a, b);
  EXPECT_FALSE(t.exact);  // 60 samples > kMaxExactRankSamples
  EXPECT_GT(t.p_value, 0.5);
  auto same = mann_whitney_u({2, 2, 2}, {2, 2, 2});  // all tied: nothing to tell apart
  EXPECT_DOUBLE_EQ(same.p_value, 1.0);
  EXPECT_TRUE(std::isnan(mann_whitney_u({}, {1}).p_value));
}

}  // namespace
}  // namespace topolab::statistics
