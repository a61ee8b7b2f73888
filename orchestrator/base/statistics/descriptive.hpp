#pragma once
// Descriptive statistics of one sample, used by every reporter and by adaptive repetitions.
// Pure functions; empty input gives NaN.
#include <limits>
#include <vector>

namespace topolab::statistics {

// "No value": what an empty sample or an undefined figure gives.
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double median(std::vector<double> values);
double min_of(const std::vector<double>& values);
double max_of(const std::vector<double>& values);
double mean(const std::vector<double>& values);
double stddev(const std::vector<double>& values);  // sample standard deviation (n-1)
double cv(const std::vector<double>& values);      // stddev / mean; 0 for n < 2
// 100 * (median / baseline_median - 1)
double penalty_percent(double median, double baseline_median);
// Linear interpolation between closest ranks; `sorted` ascending and not empty, q in [0, 1].
double quantile(const std::vector<double>& sorted, double q);

struct Interval {
  double low, high;
};

}  // namespace topolab::statistics
