// Issue 18, item 3: two reports side by side (the benchstat idea). Semantics on hand-built
// reports with known shifts, golden files for the four formats.
#include "orchestrator/results/report/compare.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "common/file_io.hpp"
#include "orchestrator/results/report/reporter.hpp"
#include "tests/support/golden.hpp"

namespace topolab::report {
namespace {

const std::string kData = std::string(TOPOLAB_TESTS_DIR) + "/orchestrator/results/report/data/";

ReportRow row(const std::string& cell, std::vector<double> values, std::string bench = "sqrt") {
  ReportRow r;
  r.cell = cell;
  r.factors = {{"threads", cell}};
  r.benchmark = std::move(bench);
  r.unit = "s";
  r.status = "done";
  r.values = std::move(values);
  return r;
}

ReportData report(const std::string& name, std::vector<ReportRow> rows) {
  ReportData d;
  d.experiment = name;
  d.rows = std::move(rows);
  compute_statistics(d, nlohmann::json::object());
  return d;
}

// B is A with n doubled: every time about twice as long.
CompareData shifted() {
  auto a = report("sqrt-n", {row("threads=1", {1.00, 1.03, 0.98, 1.01, 0.99}),
                             row("threads=2", {0.52, 0.55, 0.50, 0.51, 0.53}),
                             row("threads=4", {0.30, 0.31, 0.29})});
  auto b = report("sqrt-2n", {row("threads=1", {2.02, 1.99, 2.05, 2.01, 1.97}),
                              row("threads=2", {1.01, 1.06, 0.99, 1.03, 1.02}),
                              row("threads=8", {0.2, 0.21, 0.19})});
  a.context = ReportContext{};
  a.context->experiment.accelerator = "tcg";
  a.context->experiment.emulated = true;
  b.context = ReportContext{};
  b.context->experiment.accelerator = "kvm";
  // Scheduling telemetry (issue 26): threads=1 on both sides, threads=2 on A only (B "not
  // recorded", as a store of an older agent).
  auto telemetry = [](std::uint64_t migrations, double user_s) {
    protocol::RunTelemetry t;
    t.migrations = migrations;
    t.migrations_cross_l3 = 0;
    t.cpu_user_s = user_s;
    t.cpu_sys_s = 0.02;
    t.ctx_switches_involuntary = 3 * migrations;
    t.samples = 100;
    return t;
  };
  a.rows[0].telemetry = {telemetry(2, 1.0), telemetry(3, 1.02), telemetry(5, 0.99)};
  b.rows[0].telemetry = {telemetry(6, 2.0), telemetry(8, 2.04)};
  a.rows[1].telemetry = {telemetry(1, 1.0)};
  return compare_reports(a, b, "a.db (experiment sqrt-n)", "b.db (experiment sqrt-2n)");
}

TEST(Compare, KnownShiftHasTheRightSignAndIsSignificant) {
  const auto d = shifted();
  ASSERT_EQ(d.rows.size(), 2u);
  for (const auto& r : d.rows) {
    EXPECT_GT(r.delta_pct, 90) << r.cell;
    EXPECT_LT(r.delta_pct, 110) << r.cell;
    EXPECT_GT(r.delta_ci.low, 0) << r.cell << ": the interval excludes no change";
    EXPECT_TRUE(r.test.exact);
    EXPECT_NEAR(r.test.p_value, 2.0 / 252, 1e-12) << "complete separation of 5 vs 5";
    EXPECT_NEAR(r.difference.p_adjusted, 2 * 2.0 / 252, 1e-12) << "Holm over the 2 rows";
    EXPECT_EQ(r.verdict, "worse") << "B takes longer; lower is better";
  }
  EXPECT_NEAR(d.rows[0].delta_pct, 100 * (2.01 / 1.00 - 1), 1e-9);
  // Swapped sides: the opposite sign, "better".
  auto a = report("x", {row("c", {2.02, 1.99, 2.05, 2.01, 1.97})});
  auto b = report("y", {row("c", {1.00, 1.03, 0.98, 1.01, 0.99})});
  auto swapped = compare_reports(a, b, "a", "b");
  EXPECT_LT(swapped.rows[0].delta_pct, -45);
  EXPECT_EQ(swapped.rows[0].verdict, "better");
}

TEST(Compare, SameConfigurationIsNotSignificant) {
  auto a = report("x", {row("c", {1.00, 1.03, 0.98, 1.01, 0.99, 1.02})});
  auto b = report("y", {row("c", {1.01, 0.97, 1.02, 1.00, 1.04, 0.99})});
  const auto d = compare_reports(a, b, "a", "b");
  ASSERT_EQ(d.rows.size(), 1u);
  EXPECT_GT(d.rows[0].test.p_value, 0.5);
  EXPECT_EQ(d.rows[0].verdict, "not_significant");
  EXPECT_LT(d.rows[0].delta_ci.low, 0);
  EXPECT_GT(d.rows[0].delta_ci.high, 0);
}

TEST(Compare, ATopologyMismatchIsSaidNextToTheVerdict) {
  auto a = report("x", {row("c", {1, 2, 3})});
  auto b = report("y", {row("c", {1, 2, 3})});
  b.rows[0].mismatch = true;
  auto d = compare_reports(a, b, "a", "b");
  EXPECT_EQ(d.rows[0].mismatch, "B");
  EXPECT_EQ(verdict_text(d.rows[0]), "too_few_runs (topology mismatch in B)");
  a.rows[0].mismatch = true;
  EXPECT_EQ(compare_reports(a, b, "a", "b").rows[0].mismatch, "A and B");
  EXPECT_EQ(verdict_text(compare_reports(a, a, "a", "b").rows[0]),
            "too_few_runs (topology mismatch in A and B)");
}

TEST(Compare, ThreeRunsCannotBeSignificantAndSaySo) {
  auto a = report("x", {row("c", {1, 1.1, 1.2})});
  auto b = report("y", {row("c", {5, 5.1, 5.2})});
  EXPECT_EQ(compare_reports(a, b, "a", "b").rows[0].verdict, "too_few_runs");
}

TEST(Compare, OneSidedCellsAreListedAndEmptySidesSayNoData) {
  const auto d = shifted();
  EXPECT_EQ(d.only_a, (std::vector<std::string>{"threads=4 / sqrt"}));
  EXPECT_EQ(d.only_b, (std::vector<std::string>{"threads=8 / sqrt"}));
  auto a = report("x", {row("c", {})});
  auto b = report("y", {row("c", {1, 2})});
  EXPECT_EQ(compare_reports(a, b, "a", "b").rows[0].verdict, "no_data");
  auto ms = report("y", {row("c", {1, 2})});
  ms.rows[0].unit = "ms";
  auto s = report("x", {row("c", {1, 2})});
  auto units = compare_reports(s, ms, "a", "b");
  EXPECT_EQ(units.rows[0].verdict, "units differ");
  EXPECT_TRUE(std::isnan(units.rows[0].delta_pct));
}

TEST(Compare, TcgWarningInAllFourFormatsWhenEitherSideIsEmulated) {
  const auto d = shifted();
  for (const char* f : {"table", "csv", "json", "html"}) {
    std::ostringstream out;
    auto r = make_reporter(f, out);
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE((*r)->compare(d).ok());
    EXPECT_NE(out.str().find(kTcgWarning), std::string::npos) << f;
  }
  auto a = report("x", {row("c", {1, 2})});
  auto kvm = compare_reports(a, a, "a", "b");
  for (const char* f : {"table", "csv", "json", "html"}) {
    std::ostringstream out;
    EXPECT_TRUE((*make_reporter(f, out))->compare(kvm).ok());
    EXPECT_EQ(out.str().find(kTcgWarning), std::string::npos) << f;
  }
}

// data/compare_golden.<ext> (tests/support/golden.hpp: scripts/update-goldens.sh).
void expect_golden(const std::string& format, const std::string& ext) {
  std::ostringstream out;
  auto r = make_reporter(format, out);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE((*r)->compare(shifted()).ok());
  SCOPED_TRACE("format " + format);
  ::topolab::testing::expect_golden_file(kData + "compare_golden." + ext, out.str());
}

TEST(CompareReporters, ConsoleMatchesGolden) { expect_golden("table", "txt"); }
TEST(CompareReporters, CsvMatchesGolden) { expect_golden("csv", "csv"); }
TEST(CompareReporters, JsonMatchesGolden) { expect_golden("json", "json"); }
TEST(CompareReporters, HtmlMatchesGolden) { expect_golden("html", "html"); }

TEST(CompareReporters, UnknownFormatIsAnError) {
  std::ostringstream out;
  auto r = make_reporter("xml", out);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().is(ErrorKind::input));
  EXPECT_EQ(r.error().message, "--format 'xml': expected table, csv, json, html or markdown");
  EXPECT_EQ(out.str(), "") << "a refused format wrote output";
}

}  // namespace
}  // namespace topolab::report
