#pragma once
// When adaptive repetitions stop (issue 27): the one rule, used by the runner to decide whether
// to add a repetition and by the report to say which cells stopped at the cap.
#include <optional>
#include <vector>

namespace topolab::statistics {

struct AdaptiveTarget {
  std::optional<double> cv_threshold;      // more while CV (stddev/mean) exceeds this
  std::optional<double> ci_halfwidth_pct;  // more while the median's 95 % interval is wider
};

// True while a target set is not met. The half-width target is unmet while no interval exists
// yet (fewer than 6 values: median_interval).
bool needs_more_repetitions(const std::vector<double>& values, const AdaptiveTarget& target);

}  // namespace topolab::statistics
