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
