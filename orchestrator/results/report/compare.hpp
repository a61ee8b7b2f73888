#pragma once
// Comparison of two reports (topolab report A.db B.db), the benchstat idea: matching
// (cell, benchmark) rows side by side with both medians, the change of B against A in %, and
// the same difference, interval and verdict as the single-store report's penalty column
// (statistics::measure_difference, Holm over the rows). Rows present on one side only are
// listed, not dropped.
#include <optional>
#include <string>
#include <vector>

#include "orchestrator/base/statistics/rank_test.hpp"
#include "orchestrator/base/statistics/verdict.hpp"
#include "orchestrator/results/report/report_data.hpp"
#include "orchestrator/results/report/telemetry_delta.hpp"

namespace topolab::report {

struct CompareRow {
  std::string cell, benchmark, unit;
  int benchmark_index = 0;
  bool lower_is_better = true;
  std::vector<double> a, b;  // repetition values
  double median_a = 0, median_b = 0;
  double delta_pct = 0;               // 100 * (median_b / median_a - 1); NaN when not comparable
  Interval delta_ci{0, 0};            // Hodges-Lehmann 95 % (NaN ends with too few runs)
  statistics::Difference difference;  // B against A: range, p, adjusted p, verdict
  statistics::RankTest test;          // Mann-Whitney U of b against a (u, exact)
  std::string verdict;                // statistics::verdict_name, or "units differ"
  bool units_differ = false;
  // The side(s) whose guest saw another topology than intended: "A", "B", "A and B" or "".
  // Said next to the verdict: such a cell measured something else than its label says.
  std::string mismatch;
  TelemetryDelta telemetry;  // scheduling telemetry of both sides (issue 26), no verdict
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
  VerdictOptions verdicts;
  int tested = 0;
  std::vector<CompareRow> rows;
  std::vector<std::string> only_a, only_b;  // "cell / benchmark" present on one side only
  std::vector<std::string> warnings;        // both sides' warnings, prefixed "A: " / "B: "
  bool emulated() const;                    // either side ran under TCG
  std::string emulated_sides() const;       // "A", "B", "A and B" or ""
};

// Rows match on (cell label, benchmark index, benchmark name). Verdicts as in the single-store
// report: Holm over the compared rows unless options.correct is off.
CompareData compare_reports(const ReportData& a, const ReportData& b, std::string label_a,
                            std::string label_b, const VerdictOptions& options = {});

}  // namespace topolab::report
