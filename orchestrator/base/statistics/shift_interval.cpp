#include "orchestrator/base/statistics/shift_interval.hpp"

#include <algorithm>
#include <cmath>

#include "orchestrator/base/statistics/rank_test.hpp"

namespace topolab::statistics {
namespace {

// How many pairwise differences to cut from each end, c, with P(U <= c - 1) <= alpha / 2, and
// the achieved two-sided level 1 - 2 P(U <= c - 1). c = 0: no interval at this level.
struct Cut {
  std::size_t c = 0;
  double confidence = 0;
};

Cut exact_cut(int n1, int n2, double half_alpha) {
  const auto dist = exact_u_distribution(n1, n2);
  Cut cut;
  double tail = 0;
  for (std::size_t k = 0; k < dist.size(); ++k) {
    if (tail + dist[k] > half_alpha) break;
    tail += dist[k];
    cut = {k + 1, 1 - 2 * tail};
  }
  return cut;
}

// Large samples: the normal approximation of U (the convention of R's wilcox.test conf.int).
Cut normal_cut(int n1, int n2, double half_alpha) {
  const double m = static_cast<double>(n1) * n2;
  const double sd = std::sqrt(m * (n1 + n2 + 1) / 12.0);
  const double c = std::floor(m / 2 - normal_quantile_upper(half_alpha) * sd);
  if (c < 1) return {};
  return {static_cast<std::size_t>(c), 1 - 2 * half_alpha};
}

bool all_positive(const std::vector<double>& v) {
  return std::all_of(v.begin(), v.end(), [](double x) { return std::isfinite(x) && x > 0; });
}

double to_pct(double log_ratio) { return 100.0 * std::expm1(log_ratio); }

}  // namespace

std::optional<RatioInterval> ratio_interval(const std::vector<double>& cell,
                                            const std::vector<double>& baseline,
                                            double confidence) {
  if (cell.empty() || baseline.empty() || !all_positive(cell) || !all_positive(baseline))
    return std::nullopt;
  const int n1 = static_cast<int>(cell.size()), n2 = static_cast<int>(baseline.size());
  const double half_alpha = (1 - confidence) / 2;
  const Cut cut = n1 + n2 <= kMaxExactRankSamples ? exact_cut(n1, n2, half_alpha)
                                                  : normal_cut(n1, n2, half_alpha);
  if (cut.c == 0) return std::nullopt;
  std::vector<double> d;
  d.reserve(cell.size() * baseline.size());
  for (double x : cell)
    for (double y : baseline) d.push_back(std::log(x) - std::log(y));
  std::sort(d.begin(), d.end());
  RatioInterval r;
  r.pct = {to_pct(d[cut.c - 1]), to_pct(d[d.size() - cut.c])};
  r.estimate_pct = to_pct(quantile(d, 0.5));
  r.confidence = cut.confidence;
  return r;
}

Interval ratio_range_pct(const std::vector<double>& cell, const std::vector<double>& baseline) {
  return {penalty_percent(min_of(cell), max_of(baseline)),
          penalty_percent(max_of(cell), min_of(baseline))};
}

std::optional<Interval> median_interval(const std::vector<double>& values, double confidence) {
  const std::size_t n = values.size();
  if (n == 0) return std::nullopt;
  // P(X < median) = 1/2: the interval [x_(k), x_(n+1-k)] misses it with probability
  // 2 P(Bin(n, 1/2) <= k - 1); the largest k keeping that <= 1 - confidence.
  std::vector<double> pmf(n + 1);
  pmf[0] = std::pow(0.5, static_cast<double>(n));
  for (std::size_t i = 1; i <= n; ++i)
    pmf[i] = pmf[i - 1] * static_cast<double>(n - i + 1) / static_cast<double>(i);
  std::size_t k = 0;
  double tail = 0;
  while (k < n / 2 && tail + pmf[k] <= (1 - confidence) / 2) tail += pmf[k++];
  if (k == 0) return std::nullopt;
  std::vector<double> s = values;
  std::sort(s.begin(), s.end());
  return Interval{s[k - 1], s[n - k]};
}

std::optional<double> median_halfwidth_pct(const std::vector<double>& values, double confidence) {
  const auto ci = median_interval(values, confidence);
  const double m = median(values);
  if (!ci || !std::isfinite(m) || m == 0) return std::nullopt;
  return 100.0 * (ci->high - ci->low) / 2 / std::fabs(m);
}

}  // namespace topolab::statistics
