#pragma once
// Small pure statistics used by every reporter. Empty input gives NaN.
#include <cstdint>
#include <vector>

namespace topolab::report {

double median(std::vector<double> values);
double min_of(const std::vector<double>& values);
double max_of(const std::vector<double>& values);
double mean(const std::vector<double>& values);
double stddev(const std::vector<double>& values);  // sample standard deviation (n-1)
double cv(const std::vector<double>& values);      // stddev / mean; 0 for n < 2
// 100 * (median / baseline_median - 1)
double penalty_percent(double median, double baseline_median);

struct Interval {
  double low, high;
};
// Percentile bootstrap CI of penalty_percent(median(cell), median(baseline)): resamples both
// sides with replacement `resamples` times using a fixed seed, so the result is reproducible.
Interval bootstrap_penalty_ci(const std::vector<double>& cell, const std::vector<double>& baseline,
                              double confidence = 0.95, int resamples = 2000,
                              std::uint64_t seed = 42);

// --- Rank test for comparisons (topolab report A.db B.db) ---

// Upper tail of the standard normal distribution, P(Z >= z).
double normal_sf(double z);

// Probabilities P(U = k), k = 0 .. n1*n2, of the Mann-Whitney U statistic under the null
// hypothesis without ties (every arrangement of the n1 + n2 ranks equally likely). Empty when
// n1 or n2 is 0 or n1 + n2 > kMaxExactRankSamples.
constexpr int kMaxExactRankSamples = 50;
std::vector<double> exact_u_distribution(int n1, int n2);

struct RankTest {
  double u = 0;        // U of `a`: pairs (a_i, b_j) with a_i > b_j, a tie counting 1/2
  double p_value = 1;  // two-sided; NaN when a side is empty
  bool exact = false;  // exact null distribution (no ties, n1 + n2 <= kMaxExactRankSamples)
  double min_p = 1;    // smallest two-sided p these sample sizes can give: 2 / C(n1+n2, n1)
};
// Two-sided Mann-Whitney U test. Exact when there are no ties and n1 + n2 <=
// kMaxExactRankSamples; otherwise the normal approximation with tie correction and continuity
// correction (the same convention as scipy.stats.mannwhitneyu and R's wilcox.test).
RankTest mann_whitney_u(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace topolab::report
