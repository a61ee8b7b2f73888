#pragma once
// The two-sided Mann-Whitney U test and its exact null distribution: the test behind every
// verdict (verdict.hpp) and the critical values of the shift interval (shift_interval.hpp).
#include <vector>

namespace topolab::statistics {

// Upper tail of the standard normal distribution, P(Z >= z).
double normal_sf(double z);
// z with P(Z >= z) = p, for p in (0, 1) (bisection on normal_sf: exact to 1e-12).
double normal_quantile_upper(double p);

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

}  // namespace topolab::statistics
