#include "orchestrator/report/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace topolab::report {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::uint64_t next(std::uint64_t& state) {  // splitmix64: same numbers on every platform
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::vector<double> resample(const std::vector<double>& v, std::uint64_t& state) {
  std::vector<double> out(v.size());
  for (auto& x : out) x = v[next(state) % v.size()];
  return out;
}

// Linear interpolation between closest ranks on sorted data.
double quantile(const std::vector<double>& sorted, double q) {
  double pos = q * static_cast<double>(sorted.size() - 1);
  auto lo = static_cast<std::size_t>(std::floor(pos));
  auto hi = static_cast<std::size_t>(std::ceil(pos));
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}

}  // namespace

double median(std::vector<double> v) {
  if (v.empty()) return kNaN;
  std::sort(v.begin(), v.end());
  std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

double min_of(const std::vector<double>& v) {
  return v.empty() ? kNaN : *std::min_element(v.begin(), v.end());
}

double max_of(const std::vector<double>& v) {
  return v.empty() ? kNaN : *std::max_element(v.begin(), v.end());
}

double mean(const std::vector<double>& v) {
  if (v.empty()) return kNaN;
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

double stddev(const std::vector<double>& v) {
  if (v.size() < 2) return v.empty() ? kNaN : 0.0;
  double m = mean(v), acc = 0;
  for (double x : v) acc += (x - m) * (x - m);
  return std::sqrt(acc / static_cast<double>(v.size() - 1));
}

double cv(const std::vector<double>& v) {
  if (v.empty()) return kNaN;
  if (v.size() < 2) return 0.0;
  double m = mean(v);
  return m == 0 ? kNaN : stddev(v) / std::fabs(m);
}

double penalty_percent(double m, double baseline) {
  if (!std::isfinite(m) || !std::isfinite(baseline) || baseline == 0) return kNaN;
  return 100.0 * (m / baseline - 1.0);
}

Interval bootstrap_penalty_ci(const std::vector<double>& cell, const std::vector<double>& baseline,
                              double confidence, int resamples, std::uint64_t seed) {
  if (cell.empty() || baseline.empty() || resamples < 1) return {kNaN, kNaN};
  std::uint64_t state = seed;
  std::vector<double> penalties;
  penalties.reserve(static_cast<std::size_t>(resamples));
  for (int i = 0; i < resamples; ++i) {
    double p = penalty_percent(median(resample(cell, state)), median(resample(baseline, state)));
    if (std::isfinite(p)) penalties.push_back(p);
  }
  if (penalties.empty()) return {kNaN, kNaN};
  std::sort(penalties.begin(), penalties.end());
  double alpha = (1.0 - confidence) / 2.0;
  return {quantile(penalties, alpha), quantile(penalties, 1.0 - alpha)};
}

}  // namespace topolab::report

namespace topolab::report {
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

}  // namespace topolab::report
