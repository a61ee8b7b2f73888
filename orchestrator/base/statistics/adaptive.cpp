#include "orchestrator/base/statistics/adaptive.hpp"

#include "orchestrator/base/statistics/descriptive.hpp"
#include "orchestrator/base/statistics/shift_interval.hpp"

namespace topolab::statistics {

bool needs_more_repetitions(const std::vector<double>& values, const AdaptiveTarget& target) {
  if (target.cv_threshold && cv(values) > *target.cv_threshold) return true;
  if (target.ci_halfwidth_pct) {
    const auto hw = median_halfwidth_pct(values);
    if (!hw || *hw > *target.ci_halfwidth_pct) return true;
  }
  return false;
}

}  // namespace topolab::statistics
