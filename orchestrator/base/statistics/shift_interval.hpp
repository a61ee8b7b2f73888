#pragma once
// Distribution-free intervals whose coverage does not rest on a distribution:
//  - the Hodges-Lehmann interval of the ratio cell / baseline, computed on log values, where a
//    multiplicative change is a shift (its coverage is exact for any continuous distribution
//    of that shape, at the level the Mann-Whitney null distribution allows);
//  - the order-statistic interval of one sample's median (binomial), for adaptive repetitions.
// The coverage of both is measured in tests/orchestrator/base/statistics/coverage_test.cpp.
#include <optional>
#include <vector>

#include "orchestrator/base/statistics/descriptive.hpp"

namespace topolab::statistics {

struct RatioInterval {
  Interval pct;             // 100 * (ratio - 1) at the low and high end
  double estimate_pct = 0;  // Hodges-Lehmann estimate: median of the pairwise log ratios
  double confidence = 0;    // the achieved level (>= the nominal one; exact n1+n2 <= 50)
};

// nullopt when a side is empty, a value is not positive (no log), or the sample sizes are too
// small for any interval at this confidence (n = 3 per side: 2/C(6,3) = 0.1 > 0.05).
std::optional<RatioInterval> ratio_interval(const std::vector<double>& cell,
                                            const std::vector<double>& baseline,
                                            double confidence = 0.95);

// The range of 100 * (cell / baseline - 1) over every pair: what can honestly be said of a
// change with too few runs for an interval.
Interval ratio_range_pct(const std::vector<double>& cell, const std::vector<double>& baseline);

// Order-statistic interval of the median of one sample (at least `confidence`); nullopt when n
// is too small (n < 6 at 95 %).
std::optional<Interval> median_interval(const std::vector<double>& values,
                                        double confidence = 0.95);

// Half-width of median_interval in % of the median; nullopt when there is no interval.
std::optional<double> median_halfwidth_pct(const std::vector<double>& values,
                                           double confidence = 0.95);

}  // namespace topolab::statistics
