#include "orchestrator/base/statistics/verdict.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "orchestrator/base/statistics/adaptive.hpp"
#include "orchestrator/base/statistics/noise.hpp"
#include "orchestrator/base/statistics/shift_interval.hpp"

namespace topolab::statistics {
namespace {

const std::vector<double> kBase{1.00, 1.02, 0.98, 1.01, 0.99, 1.03, 0.97};

std::vector<double> scaled(const std::vector<double>& v, double f) {
  std::vector<double> out;
  for (double x : v) out.push_back(x * f);
  return out;
}

TEST(Verdict, TwoRunsPerSideIsTooFewRunsWithTheRangeAndNoInterval) {
  const auto d = measure_difference({1.20, 1.30}, {1.00, 1.10}, true);
  EXPECT_EQ(d.verdict, Verdict::kTooFewRuns);
  EXPECT_FALSE(d.ci_pct.has_value());
  EXPECT_FALSE(d.tested());
  EXPECT_NEAR(d.range_pct.low, 100 * (1.20 / 1.10 - 1), 1e-9);
  EXPECT_NEAR(d.range_pct.high, 30.0, 1e-9);
  EXPECT_EQ(verdict_name(d.verdict), "too_few_runs");
}

TEST(Verdict, DirectionComesFromTheUnit) {
  const auto slower = scaled(kBase, 1.2);
  EXPECT_EQ(measure_difference(slower, kBase, /*lower_is_better=*/true).verdict, Verdict::kWorse);
  EXPECT_EQ(measure_difference(slower, kBase, /*lower_is_better=*/false).verdict, Verdict::kBetter);
  EXPECT_EQ(measure_difference(kBase, slower, true).verdict, Verdict::kBetter);
}

TEST(Verdict, OverlappingSamplesAreNotSignificant) {
  const auto d = measure_difference({1.01, 0.99, 1.02, 0.98, 1.00}, kBase, true);
  EXPECT_EQ(d.verdict, Verdict::kNotSignificant);
  ASSERT_TRUE(d.ci_pct.has_value());
  EXPECT_LT(d.ci_pct->low, 0);
  EXPECT_GT(d.ci_pct->high, 0);
  EXPECT_EQ(verdict_mark(d.verdict), "~");
}

TEST(Verdict, EmptySideIsNoData) {
  EXPECT_EQ(measure_difference({}, kBase, true).verdict, Verdict::kNoData);
  EXPECT_EQ(measure_difference(kBase, {}, true).verdict, Verdict::kNoData);
}

TEST(Verdict, HolmAdjustsStepDownAndKeepsOrder) {
  const auto a = holm_adjust({0.01, 0.04, 0.03, 0.005, NAN});
  EXPECT_NEAR(a[0], 0.03, 1e-12);
  EXPECT_NEAR(a[1], 0.06, 1e-12);  // 1 x 0.04 < 0.06 before it: step-down keeps 0.06
  EXPECT_NEAR(a[2], 0.06, 1e-12);
  EXPECT_NEAR(a[3], 0.02, 1e-12);
  EXPECT_TRUE(std::isnan(a[4]));
  EXPECT_DOUBLE_EQ(holm_adjust({0.9, 0.8})[0], 1.0);  // capped at 1
}

TEST(Verdict, CorrectionTurnsABorderlineFindingNotSignificant) {
  // 5 vs 5 fully separated: exact p = 2/252 = 0.0079; Holm over 10 differences: 0.079.
  const std::vector<double> base{1, 2, 3, 4, 5}, cell{6, 7, 8, 9, 10};
  std::vector<Difference> ds(10, measure_difference(cell, base, true));
  EXPECT_NEAR(ds[0].p_value, 2.0 / 252, 1e-12);
  std::vector<Difference*> ptrs;
  for (auto& d : ds) ptrs.push_back(&d);
  decide_verdicts(ptrs, 0.05, true);
  EXPECT_NEAR(ds[0].p_adjusted, 10 * 2.0 / 252, 1e-12);
  EXPECT_EQ(ds[0].verdict, Verdict::kNotSignificant);
  decide_verdicts(ptrs, 0.05, false);
  EXPECT_EQ(ds[0].verdict, Verdict::kWorse);
  EXPECT_DOUBLE_EQ(ds[0].p_adjusted, ds[0].p_value);
}

TEST(RatioInterval, ExactShiftIsItsOwnEstimateAndInside) {
  const auto ci = ratio_interval(scaled(kBase, 1.2), kBase);
  ASSERT_TRUE(ci.has_value());
  EXPECT_NEAR(ci->estimate_pct, 20.0, 1e-9);
  EXPECT_LE(ci->pct.low, 20.0 + 1e-9);
  EXPECT_GE(ci->pct.high, 20.0 - 1e-9);
  EXPECT_GE(ci->confidence, 0.95);
}

TEST(RatioInterval, NoneAtThreePerSideOrWithANonPositiveValue) {
  EXPECT_FALSE(ratio_interval({1, 2, 3}, {4, 5, 6}).has_value());
  EXPECT_TRUE(ratio_interval({1, 2, 3, 4}, {5, 6, 7, 8}).has_value());  // 2/70 < 0.05
  EXPECT_FALSE(ratio_interval({1, 2, 3, 4, 0}, {1, 2, 3, 4, 5}).has_value());
  EXPECT_FALSE(ratio_interval({1, 2, 3, 4, -1}, {1, 2, 3, 4, 5}).has_value());
}

TEST(RatioInterval, LargeSamplesUseTheNormalCut) {
  std::vector<double> a, b;
  for (int i = 1; i <= 30; ++i) a.push_back(i), b.push_back(i * 1.5);
  const auto ci = ratio_interval(b, a);
  ASSERT_TRUE(ci.has_value());
  EXPECT_LT(ci->pct.low, 50.0);
  EXPECT_GT(ci->pct.high, 50.0);
}

TEST(MedianInterval, OrderStatisticsFromSixValues) {
  EXPECT_FALSE(median_interval({1, 2, 3, 4, 5}).has_value());  // 2/32 > 0.05
  const auto i = median_interval({6, 1, 5, 2, 4, 3});
  ASSERT_TRUE(i.has_value());
  EXPECT_DOUBLE_EQ(i->low, 1);
  EXPECT_DOUBLE_EQ(i->high, 6);
  EXPECT_NEAR(*median_halfwidth_pct({6, 1, 5, 2, 4, 3}), 100 * 2.5 / 3.5, 1e-9);
}

TEST(Adaptive, HalfWidthTargetWantsMoreUntilTheIntervalIsTight) {
  const AdaptiveTarget tight{std::nullopt, 1.0};
  EXPECT_TRUE(needs_more_repetitions({100, 100.1, 99.9}, tight)) << "no interval yet";
  EXPECT_FALSE(needs_more_repetitions({100, 100.1, 99.9, 100.2, 99.8, 100.05}, tight));
  EXPECT_TRUE(needs_more_repetitions({100, 110, 90, 105, 95, 100}, tight));
  const AdaptiveTarget cv_only{0.05, std::nullopt};
  EXPECT_FALSE(needs_more_repetitions({100, 101}, cv_only));
  EXPECT_TRUE(needs_more_repetitions({100, 150}, cv_only));
}

TEST(Noise, StealCvAndTcgAreSaidWithTheirFigures) {
  NoiseInput in;
  EXPECT_TRUE(noise_reasons(in).empty());
  in.steal_known = true;
  in.steal_seconds = 0.3;
  in.run_seconds = 10;
  in.cv = 0.08;
  in.cv_threshold = 0.05;
  in.emulated = true;
  const auto r = noise_reasons(in);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0], "steal 3.0% of run time");
  EXPECT_EQ(r[1], "cv 8.0% > 5.0%");
  EXPECT_EQ(r[2], "tcg");
  in.steal_seconds = 0.1;  // 1 %: below the 2 % bound
  EXPECT_EQ(noise_reasons(in).size(), 2u);
  EXPECT_EQ(noise_text({"a", "b"}), "a; b");
}

}  // namespace
}  // namespace topolab::statistics
