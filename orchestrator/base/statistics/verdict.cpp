#include "orchestrator/base/statistics/verdict.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "orchestrator/base/statistics/descriptive.hpp"
#include "orchestrator/base/statistics/rank_test.hpp"
#include "orchestrator/base/statistics/shift_interval.hpp"

namespace topolab::statistics {
namespace {

Verdict from_p(const Difference& d, double p, double alpha) {
  if (!(p < alpha) || d.change_pct == 0 || !std::isfinite(d.change_pct))
    return Verdict::kNotSignificant;
  const bool cell_higher = d.change_pct > 0;
  return cell_higher == d.lower_is_better ? Verdict::kWorse : Verdict::kBetter;
}

}  // namespace

std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kBetter:
      return "better";
    case Verdict::kWorse:
      return "worse";
    case Verdict::kNotSignificant:
      return "not_significant";
    case Verdict::kTooFewRuns:
      return "too_few_runs";
    case Verdict::kBaseline:
      return "baseline";
    case Verdict::kNoData:
      return "no_data";
  }
  return "no_data";
}

std::string_view verdict_mark(Verdict v) {
  return v == Verdict::kNotSignificant ? "~" : verdict_name(v);
}

bool Difference::tested() const { return std::isfinite(p_value); }

Difference measure_difference(const std::vector<double>& cell, const std::vector<double>& baseline,
                              bool lower_is_better, double alpha) {
  Difference d;
  d.lower_is_better = lower_is_better;
  d.n_cell = static_cast<int>(cell.size());
  d.n_baseline = static_cast<int>(baseline.size());
  d.p_value = d.p_adjusted = kNaN;
  d.change_pct = penalty_percent(median(cell), median(baseline));
  if (cell.empty() || baseline.empty() || !std::isfinite(d.change_pct)) {
    d.range_pct = {kNaN, kNaN};
    return d;  // no_data
  }
  d.range_pct = ratio_range_pct(cell, baseline);
  const auto ci = ratio_interval(cell, baseline, kConfidence);
  if (d.n_cell < kMinRunsPerSide || d.n_baseline < kMinRunsPerSide || !ci) {
    d.verdict = Verdict::kTooFewRuns;
    return d;
  }
  d.ci_pct = ci->pct;
  d.p_value = d.p_adjusted = mann_whitney_u(cell, baseline).p_value;
  d.verdict = from_p(d, d.p_value, alpha);
  return d;
}

std::vector<double> holm_adjust(const std::vector<double>& p) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < p.size(); ++i)
    if (std::isfinite(p[i])) order.push_back(i);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p[a] < p[b]; });
  std::vector<double> out = p;
  const double m = static_cast<double>(order.size());
  double running = 0;  // step-down: an adjusted p never falls below the one before it
  for (std::size_t rank = 0; rank < order.size(); ++rank) {
    running = std::max(running, std::min(1.0, (m - static_cast<double>(rank)) * p[order[rank]]));
    out[order[rank]] = running;
  }
  return out;
}

void decide_verdicts(std::vector<Difference*>& differences, double alpha, bool correct) {
  std::vector<double> p;
  for (const auto* d : differences) p.push_back(d->p_value);
  const std::vector<double> adjusted = correct ? holm_adjust(p) : p;
  for (std::size_t i = 0; i < differences.size(); ++i) {
    Difference& d = *differences[i];
    if (!d.tested()) continue;
    d.p_adjusted = adjusted[i];
    d.verdict = from_p(d, d.p_adjusted, alpha);
  }
}

}  // namespace topolab::statistics
