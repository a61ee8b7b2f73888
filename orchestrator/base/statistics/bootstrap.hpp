#pragma once
// The percentile bootstrap of the penalty: the interval topolab printed before issue 27. Kept
// only for the coverage study (tests/orchestrator/base/statistics/coverage_test.cpp), which shows
// why it was replaced: at n <= 5 per side its coverage is far below the nominal level.
#include <cstdint>
#include <vector>

#include "orchestrator/base/statistics/descriptive.hpp"

namespace topolab::statistics {

// Percentile bootstrap CI of penalty_percent(median(cell), median(baseline)): resamples both
// sides with replacement `resamples` times using a fixed seed, so the result is reproducible.
Interval bootstrap_penalty_ci(const std::vector<double>& cell, const std::vector<double>& baseline,
                              double confidence = 0.95, int resamples = 2000,
                              std::uint64_t seed = 42);

}  // namespace topolab::statistics
