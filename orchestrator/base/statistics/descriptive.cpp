#include "orchestrator/base/statistics/descriptive.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace topolab::statistics {

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

double quantile(const std::vector<double>& sorted, double q) {
  double pos = q * static_cast<double>(sorted.size() - 1);
  auto lo = static_cast<std::size_t>(std::floor(pos));
  auto hi = static_cast<std::size_t>(std::ceil(pos));
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}

}  // namespace topolab::statistics
