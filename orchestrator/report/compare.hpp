#pragma once
// Comparison of two reports (topolab report A.db B.db), the benchstat idea: matching
// (cell, benchmark) rows side by side with both medians, the change of B against A in %, a
// percentile-bootstrap 95% confidence interval of that change and a two-sided Mann-Whitney U
// test. Rows present on one side only are listed, not dropped.
#include <optional>
#include <string>
#include <vector>

#include "orchestrator/report/report_data.hpp"
#include "orchestrator/report/statistics.hpp"

namespace topolab::report {

struct CompareRow {
  std::string cell, benchmark, unit;
  int benchmark_index = 0;
  bool lower_is_better = true;
  std::vector<double> a, b;  // repetition values
  double median_a = 0, median_b = 0;
  double delta_pct = 0;     // 100 * (median_b / median_a - 1); NaN when not comparable
  Interval delta_ci{0, 0};  // percentile bootstrap, 95 %, 2000 resamples, seed 42
  RankTest test;            // Mann-Whitney U of b against a
  std::string verdict;      // see compare_verdict()
  // The side(s) whose guest saw another topology than intended: "A", "B", "A and B" or "".
  // Said next to the verdict: such a cell measured something else than its label says.
  std::string mismatch;
};

// The verdict, with " (topology mismatch in B)" when a side's guest did not see its topology.
std::string verdict_text(const CompareRow& row);

// One side's identity and context, for the header of every format.
struct CompareSide {
  std::string label;  // "A.db (experiment sqrt-n)"
  std::optional<ReportContext> context;
};

struct CompareData {
  CompareSide a, b;
  double alpha = 0.05;
  std::vector<CompareRow> rows;
  std::vector<std::string> only_a, only_b;  // "cell / benchmark" present on one side only
  std::vector<std::string> warnings;        // both sides' warnings, prefixed "A: " / "B: "
  bool emulated() const;                    // either side ran under TCG
  std::string emulated_sides() const;       // "A", "B", "A and B" or ""
};

// "no data" (a side has no values), "units differ", "too few runs" (even complete separation
// could not reach p < alpha with these sample sizes), "not significant", or "significant:
// better" / "significant: worse" (B against A, by the benchmark's direction).
std::string compare_verdict(const CompareRow& row, double alpha);

// Rows match on (cell label, benchmark index, benchmark name).
CompareData compare_reports(const ReportData& a, const ReportData& b, std::string label_a,
                            std::string label_b, double alpha = 0.05);

}  // namespace topolab::report
