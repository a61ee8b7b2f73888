#pragma once
// The verdict of a difference (issue 27): the one place that decides whether a change between
// two samples is a finding. The penalty column, comparisons and every reporter read it.
//  - below kMinRunsPerSide runs on a side: too_few_runs, and only the range of the change;
//  - otherwise the Hodges-Lehmann interval of the ratio (95 %) and the two-sided Mann-Whitney
//    p, Holm-corrected over the differences of one report unless correction is off;
//  - adjusted p < alpha: better or worse by the benchmark's direction, else not_significant.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "orchestrator/base/statistics/descriptive.hpp"

namespace topolab::statistics {

enum class Verdict { kBetter, kWorse, kNotSignificant, kTooFewRuns, kBaseline, kNoData };

// "better", "worse", "not_significant", "too_few_runs", "baseline", "no_data" (the JSON words).
std::string_view verdict_name(Verdict v);
// The table's short form: the word, "~" for not_significant.
std::string_view verdict_mark(Verdict v);

// Chosen from the coverage study (docs/reports.md "Verdicts"): at 3 runs per side no 95 %
// interval exists (2 / C(6,3) = 0.1); 4 gives one but no corrected verdict over two or more
// cells (2 / C(8,4) = 0.029); from 5 on the measured coverage is >= 95 % for every shape.
constexpr int kMinRunsPerSide = 5;
constexpr double kConfidence = 0.95;

struct Difference {
  bool lower_is_better = true;
  int n_cell = 0, n_baseline = 0;
  double change_pct = 0;           // 100 * (median(cell) / median(baseline) - 1)
  Interval range_pct{0, 0};        // over every pair (cell_i / baseline_j)
  std::optional<Interval> ci_pct;  // Hodges-Lehmann 95 %; only when verdict is decided
  double p_value = 1;              // two-sided Mann-Whitney; NaN when not tested
  double p_adjusted = 1;           // Holm over the report's tested differences (or = p_value)
  Verdict verdict = Verdict::kNoData;
  bool tested() const;  // has a p-value: enough runs on both sides
};

// The difference of `cell` against `baseline` before correction (verdict from the raw p).
Difference measure_difference(const std::vector<double>& cell, const std::vector<double>& baseline,
                              bool lower_is_better, double alpha = 0.05);

// Holm's step-down adjustment of p-values (order kept); NaN entries stay NaN and do not count.
std::vector<double> holm_adjust(const std::vector<double>& p);

// Sets p_adjusted (Holm over the tested ones, or the raw p when !correct) and every tested
// difference's verdict from it. The one place a verdict is decided from a p-value.
void decide_verdicts(std::vector<Difference*>& differences, double alpha, bool correct);

}  // namespace topolab::statistics
