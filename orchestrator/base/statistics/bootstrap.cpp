#include "orchestrator/base/statistics/bootstrap.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "orchestrator/base/statistics/random.hpp"

namespace topolab::statistics {
namespace {

std::vector<double> resample(const std::vector<double>& v, SplitMix64& rng) {
  std::vector<double> out(v.size());
  for (auto& x : out) x = v[rng.next() % v.size()];
  return out;
}

}  // namespace

Interval bootstrap_penalty_ci(const std::vector<double>& cell, const std::vector<double>& baseline,
                              double confidence, int resamples, std::uint64_t seed) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  if (cell.empty() || baseline.empty() || resamples < 1) return {kNaN, kNaN};
  SplitMix64 rng{seed};
  std::vector<double> penalties;
  penalties.reserve(static_cast<std::size_t>(resamples));
  for (int i = 0; i < resamples; ++i) {
    double p = penalty_percent(median(resample(cell, rng)), median(resample(baseline, rng)));
    if (std::isfinite(p)) penalties.push_back(p);
  }
  if (penalties.empty()) return {kNaN, kNaN};
  std::sort(penalties.begin(), penalties.end());
  double alpha = (1.0 - confidence) / 2.0;
  return {quantile(penalties, alpha), quantile(penalties, 1.0 - alpha)};
}

}  // namespace topolab::statistics
