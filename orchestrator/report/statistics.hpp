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

}  // namespace topolab::report
