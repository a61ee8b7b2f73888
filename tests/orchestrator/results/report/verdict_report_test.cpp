// Issue 27 in the report: a verdict in every format, no interval with too few runs, and the same
// verdict from the single-store report and from a comparison of the same data.
#include <gtest/gtest.h>

#include <sstream>

#include "orchestrator/results/report/compare.hpp"
#include "orchestrator/results/report/json_reporter.hpp"
#include "orchestrator/results/report/reporter.hpp"

namespace topolab::report {
namespace {

ReportRow row(const std::string& expose, std::vector<double> values) {
  ReportRow r;
  r.cell = "expose=" + expose;
  r.factors = {{"expose", expose}};
  r.benchmark = "sqrt";
  r.unit = "s";
  r.status = "done";
  r.values = std::move(values);
  return r;
}

ReportData with_baseline(std::vector<ReportRow> rows, const VerdictOptions& options = {}) {
  ReportData d;
  d.experiment = "verdicts";
  d.baseline = "expose=flat";
  d.rows = std::move(rows);
  compute_statistics(d, {{"expose", "flat"}}, options);
  return d;
}

std::string render(const ReportData& d, const std::string& format) {
  std::ostringstream out;
  auto r = make_reporter(format, out);
  EXPECT_TRUE(r.ok());
  (*r)->report(d);
  return out.str();
}

// What the main job wrote before issue 27: 2 runs per cell, a +19 % "finding".
TEST(VerdictReport, TwoRunsPerCellSayTooFewRunsAndPrintNoIntervalInAllFourFormats) {
  const auto d = with_baseline({row("flat", {1.00, 1.10}), row("sockets", {1.20, 1.30})});
  ASSERT_TRUE(d.rows[1].difference.has_value());
  EXPECT_EQ(d.rows[1].verdict(), statistics::Verdict::kTooFewRuns);
  EXPECT_EQ(d.tested, 0);
  for (const char* f : {"table", "csv", "json", "html"}) {
    const std::string out = render(d, f);
    EXPECT_NE(out.find("too_few_runs"), std::string::npos) << f << "\n" << out;
    EXPECT_EQ(out.find("[+"), std::string::npos) << f << ": an interval was printed\n" << out;
  }
  const auto j = report_to_json(d);
  EXPECT_TRUE(j["rows"][1]["penalty_ci"].is_null());
  EXPECT_TRUE(j["rows"][1]["penalty_range"].is_array());
  EXPECT_EQ(j["rows"][1]["verdict"], "too_few_runs");
  EXPECT_EQ(j["rows"][0]["verdict"], "baseline");
  EXPECT_EQ(render(d, "table").find("range +9.1..+30.0%") != std::string::npos, true)
      << render(d, "table");
}

TEST(VerdictReport, EnoughRunsGiveAVerdictAndTheHolmHeader) {
  const auto d = with_baseline({row("flat", {1.00, 1.01, 0.99, 1.02, 0.98}),
                                row("sockets", {1.20, 1.21, 1.19, 1.22, 1.18}),
                                row("dies", {1.00, 1.015, 0.985, 1.01, 0.99})});
  EXPECT_EQ(d.tested, 2);
  EXPECT_EQ(d.rows[1].verdict(), statistics::Verdict::kWorse);  // p 2/252, x2 = 0.016
  EXPECT_EQ(d.rows[2].verdict(), statistics::Verdict::kNotSignificant);
  const std::string table = render(d, "table");
  EXPECT_NE(table.find("Holm-corrected over 2 differences"), std::string::npos) << table;
  EXPECT_NE(table.find(" worse"), std::string::npos) << table;
  EXPECT_NE(table.find(" ~ "), std::string::npos) << table;
  for (const char* f : {"csv", "json", "html"}) {
    const std::string out = render(d, f);
    EXPECT_NE(out.find("worse"), std::string::npos) << f;
    EXPECT_NE(out.find("not_significant"), std::string::npos) << f;
  }
  EXPECT_EQ(report_to_json(d)["verdicts"]["correction"], "holm");
}

TEST(VerdictReport, NoCorrectionIsStatedAndUsesTheRawP) {
  std::vector<ReportRow> rows = {row("flat", {1, 2, 3, 4, 5})};
  for (int i = 0; i < 8; ++i) rows.push_back(row("c" + std::to_string(i), {6, 7, 8, 9, 10}));
  const auto corrected = with_baseline(rows);
  const auto raw = with_baseline(rows, {0.05, false});
  EXPECT_EQ(corrected.rows[1].verdict(), statistics::Verdict::kNotSignificant);  // 8 x 0.0079
  EXPECT_EQ(raw.rows[1].verdict(), statistics::Verdict::kWorse);
  EXPECT_NE(render(raw, "table").find("not corrected"), std::string::npos);
  EXPECT_EQ(report_to_json(raw)["verdicts"]["correction"], "none");
}

// The same samples through `topolab report STORE` (cell against its baseline row) and through
// `topolab report A B` (B's cell against A's): the same verdict, p and interval, for each shape.
TEST(VerdictReport, CompareAndSingleStoreGiveTheSameVerdictForTheSameData) {
  const std::vector<double> base{1.00, 1.01, 0.99, 1.02, 0.98, 1.00, 1.03};
  const std::vector<std::vector<double>> cells = {{1.20, 1.21, 1.19, 1.22, 1.18, 1.2},
                                                  {0.80, 0.81, 0.79, 0.82, 0.78},
                                                  {1.0, 1.01, 0.99, 1.02},
                                                  {1.0, 0.99, 1.01, 1.02, 0.98}};
  for (const auto& c : cells) {
    const auto single = with_baseline({row("flat", base), row("sockets", c)});
    ReportData a, b;
    a.rows = {row("sockets", base)};
    b.rows = {row("sockets", c)};
    compute_statistics(a, nlohmann::json::object());
    compute_statistics(b, nlohmann::json::object());
    const auto cmp = compare_reports(a, b, "a", "b");
    ASSERT_EQ(cmp.rows.size(), 1u);
    const auto& s = *single.rows[1].difference;
    EXPECT_EQ(cmp.rows[0].verdict, statistics::verdict_name(single.rows[1].verdict()));
    EXPECT_EQ(cmp.rows[0].difference.tested(), s.tested());
    if (s.tested()) {
      EXPECT_EQ(cmp.rows[0].difference.p_adjusted, s.p_adjusted);
    }
    EXPECT_EQ(cmp.rows[0].difference.ci_pct.has_value(), s.ci_pct.has_value());
  }
}

}  // namespace
}  // namespace topolab::report
