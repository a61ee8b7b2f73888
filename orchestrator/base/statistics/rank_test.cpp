#include "orchestrator/base/statistics/rank_test.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace topolab::statistics {
namespace {

// Midranks (1-based) of the pooled sample, and the tie term sum(t^3 - t) over tie groups.
struct Ranks {
  std::vector<double> rank;  // index into the pooled vector
  double tie_term = 0;
};

Ranks midranks(const std::vector<double>& pooled) {
  std::vector<std::size_t> order(pooled.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(),
            [&](std::size_t x, std::size_t y) { return pooled[x] < pooled[y]; });
  Ranks r;
  r.rank.resize(pooled.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && pooled[order[j + 1]] == pooled[order[i]]) ++j;
    const double t = static_cast<double>(j - i + 1);
    const double mid = (static_cast<double>(i + 1) + static_cast<double>(j + 1)) / 2.0;
    for (std::size_t k = i; k <= j; ++k) r.rank[order[k]] = mid;
    r.tie_term += t * t * t - t;
    i = j + 1;
  }
  return r;
}

// 2 / C(n1 + n2, n1): the two-sided p of the most extreme arrangement.
double smallest_two_sided_p(int n1, int n2) {
  double c = 1;  // C(n, k) built as a product; large values only make the result tiny
  for (int i = 1; i <= n1; ++i) c = c * (n2 + i) / i;
  return std::min(1.0, 2.0 / c);
}

}  // namespace

double normal_sf(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

double normal_quantile_upper(double p) {
  double lo = -40, hi = 40;  // normal_sf falls from 1 to 0 over this range
  for (int i = 0; i < 200 && hi - lo > 1e-12; ++i) {
    const double mid = (lo + hi) / 2;
    (normal_sf(mid) > p ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

std::vector<double> exact_u_distribution(int n1, int n2) {
  if (n1 <= 0 || n2 <= 0 || n1 + n2 > kMaxExactRankSamples) return {};
  // counts[j][k]: arrangements of i values of the first sample and j of the second with U = k;
  // adding one value of the first sample above j values of the second adds j to U.
  const std::size_t top = static_cast<std::size_t>(n1) * static_cast<std::size_t>(n2);
  std::vector<std::vector<double>> prev(static_cast<std::size_t>(n2) + 1,
                                        std::vector<double>(top + 1, 0.0));
  for (auto& row : prev) row[0] = 1;  // i = 0: one arrangement, U = 0
  for (int i = 1; i <= n1; ++i) {
    std::vector<std::vector<double>> cur(prev.size(), std::vector<double>(top + 1, 0.0));
    cur[0][0] = 1;
    for (std::size_t j = 1; j < cur.size(); ++j)
      for (std::size_t k = 0; k <= top; ++k)
        cur[j][k] = cur[j - 1][k] + (k >= j ? prev[j][k - j] : 0.0);
    prev = std::move(cur);
  }
  std::vector<double> p = prev[static_cast<std::size_t>(n2)];
  const double total = std::accumulate(p.begin(), p.end(), 0.0);
  for (auto& x : p) x /= total;
  return p;
}

RankTest mann_whitney_u(const std::vector<double>& a, const std::vector<double>& b) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  RankTest t;
  if (a.empty() || b.empty()) {
    t.p_value = kNaN;
    return t;
  }
  const int n1 = static_cast<int>(a.size()), n2 = static_cast<int>(b.size());
  std::vector<double> pooled = a;
  pooled.insert(pooled.end(), b.begin(), b.end());
  const Ranks r = midranks(pooled);
  const double r1 = std::accumulate(r.rank.begin(), r.rank.begin() + n1, 0.0);
  const double n1d = n1, n2d = n2, n = n1d + n2d;
  t.u = r1 - n1d * (n1d + 1) / 2;
  t.min_p = smallest_two_sided_p(n1, n2);
  const double u_big = std::max(t.u, n1d * n2d - t.u);  // the larger of U1, U2
  if (r.tie_term == 0 && n1 + n2 <= kMaxExactRankSamples) {
    const auto dist = exact_u_distribution(n1, n2);
    double tail = 0;  // P(U >= u_big)
    for (auto k = static_cast<std::size_t>(std::llround(u_big)); k < dist.size(); ++k)
      tail += dist[k];
    t.exact = true;
    t.p_value = std::min(1.0, 2 * tail);
    return t;
  }
  const double sigma = std::sqrt(n1d * n2d / 12.0 * ((n + 1) - r.tie_term / (n * (n - 1))));
  if (!(sigma > 0)) return t;  // every value tied: no evidence of a difference, p = 1
  const double z = (u_big - n1d * n2d / 2.0 - 0.5) / sigma;
  t.p_value = std::min(1.0, 2 * normal_sf(z));
  return t;
}

}  // namespace topolab::statistics
