#include "orchestrator/results/report/reporter.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "common/file_io.hpp"
#include "tests/support/golden.hpp"

namespace topolab::report {
namespace {

const std::string kData = std::string(TOPOLAB_TESTS_DIR) + "/orchestrator/results/report/data/";

// Two exposures x one benchmark plus a c2c matrix: a small but complete report.
ReportData sample() {
  ReportData d;
  d.experiment = "golden";
  d.baseline = "expose=flat";
  auto row = [](std::string expose, std::vector<double> v) {
    ReportRow r;
    r.cell = "expose=" + expose;
    r.factors = {{"expose", expose}};
    r.benchmark = "sqrt";
    r.unit = "s";
    r.status = "done";
    r.values = std::move(v);
    return r;
  };
  d.rows.push_back(row("flat", {1.00, 1.02, 0.98}));
  d.rows.push_back(row("sockets", {1.10, 1.12, 1.15}));
  auto failed = row("dies", {});
  failed.status = "failed";
  failed.error = "boot: guest did not say hello within 60 s";
  d.rows.push_back(failed);
  d.rows[1].mismatch = true;
  compute_statistics(d, {{"expose", "flat"}});
  LatencyMatrix m;
  m.cell = "expose=sockets";
  m.cpus = {0, 1, 2, 3};
  m.ns = {{NAN, 40, 120, 125}, {41, NAN, 118, 121}, {120, 119, NAN, 39}, {124, 122, 40, NAN}};
  m.topology = nlohmann::json::parse(
      R"({"cpus":[{"id":0,"l3":0,"package":0},{"id":1,"l3":0,"package":0},
                  {"id":2,"l3":1,"package":1},{"id":3,"l3":1,"package":1}]})");
  d.matrices.push_back(m);
  return d;
}

std::string render(const std::string& format) {
  std::ostringstream out;
  auto r = make_reporter(format, out);
  if (!r) return "error: " + r.error().message;
  (*r)->report(sample());
  return out.str();
}

// Compares with data/golden.<ext> (tests/support/golden.hpp: scripts/update-goldens.sh).
void expect_golden(const std::string& format, const std::string& ext) {
  SCOPED_TRACE("format " + format);
  ::topolab::testing::expect_golden_file(kData + "golden." + ext, render(format));
}

TEST(Reporters, ConsoleMatchesGolden) { expect_golden("table", "txt"); }
TEST(Reporters, CsvMatchesGolden) { expect_golden("csv", "csv"); }
TEST(Reporters, JsonMatchesGolden) { expect_golden("json", "json"); }
TEST(Reporters, HtmlMatchesGolden) { expect_golden("html", "html"); }

TEST(Reporters, PenaltyAgainstBaselineRow) {
  auto d = sample();
  EXPECT_TRUE(d.rows[0].is_baseline);
  ASSERT_TRUE(d.rows[1].penalty.has_value());
  EXPECT_NEAR(*d.rows[1].penalty, 12.0, 1e-9);  // 1.12 / 1.00
  EXPECT_FALSE(d.rows[2].penalty.has_value());  // no data
}

TEST(Reporters, HtmlIsSelfContained) {
  std::string html = render("html");
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org/2000/svg"));
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_NE(html.find("class=\"sock\""), std::string::npos);  // socket boundary drawn
  EXPECT_NE(html.find("class=\"err\""), std::string::npos);   // error bars drawn
}

TEST(Reporters, UnknownFormatIsAnError) {
  std::ostringstream out;
  auto r = make_reporter("xml", out);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().is(ErrorKind::input));
  EXPECT_NE(r.error().message.find("expected table, csv, json, html or markdown"),
            std::string::npos);
}

// One list of formats (report_formats(), which the CLI's --format check reads): every format
// renders a comparison too, and the completion, the man page and the docs, which cannot read
// it, list each, in its order.
TEST(ReportFormats, ComparisonsTakeEveryFormat) {
  for (const auto& f : report_formats()) {
    std::ostringstream out;
    auto r = make_reporter(f, out);
    ASSERT_TRUE(r.ok()) << f;
    EXPECT_TRUE((*r)->compare(CompareData{}).ok()) << f;
    EXPECT_FALSE(out.str().empty()) << f;
  }
}

// A format may render reports only: it keeps Reporter::compare, which refuses as bad input
// (exit 65 through the CLI) before a byte is written.
class ReportOnlyReporter : public Reporter {
 public:
  using Reporter::Reporter;
  void report(const ReportData&) override { out_ << "report"; }
};

TEST(ReportFormats, AFormatWithoutComparisonRefusesIt) {
  std::ostringstream out;
  ReportOnlyReporter r(out);
  auto compared = r.compare(CompareData{});
  ASSERT_FALSE(compared.ok());
  EXPECT_TRUE(compared.error().is(ErrorKind::input));
  EXPECT_NE(compared.error().message.find("no comparison"), std::string::npos);
  EXPECT_EQ(out.str(), "");
}

TEST(ReportFormats, CompletionManPageAndDocsListEveryFormat) {
  std::string spaces, pipes;
  for (const auto& f : report_formats()) {
    spaces += (spaces.empty() ? "" : " ") + f;
    pipes += (pipes.empty() ? "" : "|") + f;
  }
  const std::string src = TOPOLAB_SOURCE_DIR;
  const std::pair<std::string, std::string> expected[] = {
      {"/packaging/topolab.bash-completion",
       "--format) COMPREPLY=($(compgen -W \"" + spaces + "\""},
      {"/packaging/topolab.1", ".BR \\-\\-format \" " + pipes + ", \""},
      {"/README.md", "topolab report STORE [--format " + pipes + "]"},
      {"/docs/reports.md", "[--format " + pipes + "]"},
      {"/docs/experiments.md", "[--format " + pipes + "]"}};
  for (const auto& [file, text] : expected) {
    auto content = read_file(src + file);
    ASSERT_TRUE(content.ok()) << content.error().message;
    EXPECT_NE(content->find(text), std::string::npos) << file << " lacks: " << text;
  }
}

TEST(LatencyMatrix, ReadsMatrixAndPairsShapes) {
  auto m = latency_matrix_from_result(
      nlohmann::json::parse(R"({"details":{"cpus":[0,2],"matrix_ns":[[null,50.5],[51,null]]}})"));
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->cpus, (std::vector<int>{0, 2}));
  EXPECT_DOUBLE_EQ(m->ns[0][1], 50.5);
  auto p = latency_matrix_from_result(nlohmann::json::parse(
      R"({"details":{"pairs":[{"a":0,"b":1,"ns":70},{"a":0,"b":3,"median_ns":90}]}})"));
  ASSERT_TRUE(p.has_value());
  EXPECT_DOUBLE_EQ(p->ns[1][0], 70);
  EXPECT_EQ(p->cpus, (std::vector<int>{0, 1, 3}));
  EXPECT_DOUBLE_EQ(p->ns[2][0], 90);  // the agent's c2c-latency shape
  EXPECT_FALSE(latency_matrix_from_result(nlohmann::json::parse(R"({"details":{}})")));
  EXPECT_FALSE(latency_matrix_from_result(
      nlohmann::json::parse(R"({"details":{"matrix":[[1,2],[3]]}})")));  // not square
}

}  // namespace
}  // namespace topolab::report
