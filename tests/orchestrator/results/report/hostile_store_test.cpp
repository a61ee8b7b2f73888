// Issue 12, class 1: a store written by an older or hostile build (hostile_store.sql, rows of
// every wrong kind written with sqlite directly) is reported, never thrown on: each bad run is
// listed with its id and reason, the rest is reported, in every format, library and CLI.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "orchestrator/results/report/console_reporter.hpp"
#include "orchestrator/results/report/csv_reporter.hpp"
#include "orchestrator/results/report/html_reporter.hpp"
#include "orchestrator/results/report/reporter.hpp"
#include "orchestrator/results/store/result_store.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/store_fixture.hpp"

namespace topolab::report {
namespace {

namespace fs = std::filesystem;

const fs::path kSql = fs::path(TOPOLAB_TESTS_DIR) / "badinput/cases/guest_data/hostile_store.sql";

class HostileStore : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/topolab-hostile-store-XXXXXX";
    dir_ = mkdtemp(tmpl);
    db_ = dir_ / "hostile.db";
    ASSERT_EQ(testing::build_store(db_, kSql), "");
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_, db_;
};

TEST_F(HostileStore, BadRunsAreListedByIdAndTheRestIsReported) {
  auto store = store::ResultStore::open_read_only(db_);
  ASSERT_TRUE(store.ok()) << store.error().message;
  auto data = load_report(**store, "");
  ASSERT_TRUE(data.ok()) << data.error().message;
  std::vector<std::int64_t> ids;
  for (const auto& i : data->invalid_runs) ids.push_back(i.run_id);
  EXPECT_EQ(ids, (std::vector<std::int64_t>{2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(data->invalid_runs[0].reason,
            "guest result: field 'unit': expected a string, got number 5");
  EXPECT_NE(data->invalid_runs[4].reason.find("more than 1024 distinct CPUs"), std::string::npos);
  // The good run is reported; nothing from the 12 000-CPU result became a matrix.
  ASSERT_FALSE(data->rows.empty());
  EXPECT_EQ(data->rows[0].benchmark, "sqrt");
  EXPECT_EQ(data->rows[0].values, (std::vector<double>{1.5}));
  EXPECT_TRUE(data->matrices.empty());
  // A cell whose stored factors are not an object is no baseline of anything.
  for (const auto& r : data->rows) {
    if (r.cell.rfind("=HYPERLINK", 0) == 0) {
      EXPECT_FALSE(r.is_baseline);
    }
  }

  for (const char* format : {"table", "csv", "json", "html"}) {
    std::ostringstream out;
    auto reporter = make_reporter(format, out);
    ASSERT_TRUE(reporter.ok());
    (*reporter)->report(*data);
    const std::string text = out.str();
    const bool json = std::string(format) == "json";
    if (json) {
      EXPECT_FALSE(nlohmann::json::parse(text, nullptr, false).is_discarded())
          << "the JSON report stays valid JSON:\n"
          << text;
    }
    EXPECT_NE(text.find(json ? "\"run_id\": 2" : "run 2"), std::string::npos) << format;
    if (std::string(format) != "html") {
      EXPECT_EQ(text.find('\x1b'), std::string::npos) << format << ": raw ESC\n" << text;
    }
  }
}

TEST_F(HostileStore, TheCliReportsEveryFormatWithoutAnInternalError) {
  for (const char* format : {"table", "csv", "json", "html"}) {
    auto o = testing::run_cli({"report", db_.string(), "--format", format}, {},
                              std::chrono::seconds(60));
    ASSERT_FALSE(o.timed_out) << format;
    EXPECT_EQ(o.exit_code, 0) << format << "\n" << o.err;
    EXPECT_EQ(o.err.find("internal error"), std::string::npos) << o.err;
    EXPECT_NE(o.err.find("7 stored run(s) failed validation"), std::string::npos) << o.err;
    EXPECT_NE(o.out.find("1.5"), std::string::npos) << format << ": the good run is reported";
  }
}

TEST(CsvReporter, NeutralisesFormulasAndControlCharacters) {
  ReportData d;
  d.experiment = "=cmd|' /C calc'!A0";
  ReportRow r;
  r.cell = "@SUM(1)";
  r.factors = {{"level", "-1+2"}, {"n", -3}};
  r.benchmark = "+bench";
  r.unit = "ns\x1b[2J";
  r.status = "done";
  r.error = "\tinjected";
  d.rows.push_back(r);
  std::ostringstream out;
  CsvReporter(out).report(d);
  EXPECT_EQ(out.str(),
            "experiment,cell,level,n,benchmark,unit,n,median,min,max,mean,cv,penalty_pct,ci_low,"
            "ci_high,range_low,range_high,p_value,p_adjusted,verdict,noise,stopped_at_cap,baseline,"
            "status,mismatch,error\n"
            "'=cmd|' /C calc'!A0,'@SUM(1),'-1+2,-3,'+bench,ns\\x1b[2J,0,0,0,0,0,0,-,-,-,-,-,-,-,"
            "no_data,,0,0,done,0,"
            "\\x09injected\n");
}

TEST(ConsoleReporter, GuestTextIsMadeVisibleNotInterpreted) {
  ReportData d;
  d.experiment = "e\x1b]0;t\x07";
  ReportRow r;
  r.cell = "c";
  r.benchmark = "b";
  r.unit =
      "\xc2\x9b"
      "31m";
  r.status = "failed";
  r.error = "line1\nline2\x1b[A";
  d.rows.push_back(r);
  d.invalid_runs.push_back({9, "c", "b", "field 'unit': \x1b[31m"});
  std::ostringstream out;
  ConsoleReporter(out).report(d);
  const std::string text = out.str();
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  EXPECT_NE(text.find("experiment e\\x1b]0;t\\x07"), std::string::npos) << text;
  EXPECT_NE(text.find("\\u009b31m"), std::string::npos) << text;
  EXPECT_NE(text.find("error in c: line1\\x0aline2\\x1b[A\n"), std::string::npos) << text;
  EXPECT_NE(text.find("invalid stored run 9 (c b), left out: field 'unit': \\x1b[31m"),
            std::string::npos)
      << text;
}

TEST(HtmlReporter, GuestTextIsEscaped) {
  ReportData d;
  d.experiment = "<script>alert(1)</script>";
  ReportRow r;
  r.cell = "a\"b'c";
  r.unit = "<b>";
  r.values = {1.0};
  d.rows.push_back(r);
  compute_statistics(d, nlohmann::json::object());
  std::ostringstream out;
  HtmlReporter(out).report(d);
  const std::string html = out.str();
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("a&quot;b&#39;c"), std::string::npos);
  EXPECT_EQ(html.find("<b>"), std::string::npos);
}

}  // namespace
}  // namespace topolab::report
