// Issue 27 acceptance on a real store: the main job's store as it was written before (6 TCG
// cells x 2 repetitions) reports too_few_runs and no interval in all four formats, and the steal
// counters recorded with every run become a `noise` reason.
#include <gtest/gtest.h>

#include <sstream>

#include "orchestrator/results/report/json_reporter.hpp"
#include "tests/orchestrator/results/report/fixture_store_test.hpp"

namespace topolab::report {
namespace {

const std::filesystem::path kMainJob = std::filesystem::path(TOPOLAB_TESTS_DIR) /
                                       "orchestrator/results/report/data/main_job_store.sql";

class MainJobVerdicts : public FixtureStoreTest {};

TEST_F(MainJobVerdicts, TwoRunsPerCellGiveTooFewRunsAndNoIntervalInEveryFormat) {
  build_from(kMainJob);
  const ReportData d = load();
  int too_few = 0;
  for (const auto& r : d.rows) {
    EXPECT_EQ(r.values.size(), 2u) << r.cell;
    if (r.is_baseline) continue;
    EXPECT_EQ(r.verdict(), statistics::Verdict::kTooFewRuns) << r.cell;
    ASSERT_TRUE(r.difference.has_value()) << r.cell;
    EXPECT_FALSE(r.difference->ci_pct.has_value()) << r.cell;
    ++too_few;
    EXPECT_NE(statistics::noise_text(r.noise).find("tcg"), std::string::npos) << r.cell;
  }
  EXPECT_EQ(too_few, 4);
  for (const char* f : {"table", "csv", "json", "html"}) {
    std::ostringstream out;
    (*make_reporter(f, out))->report(d);
    EXPECT_NE(out.str().find("too_few_runs"), std::string::npos) << f;
    EXPECT_EQ(out.str().find("% ["), std::string::npos) << f << ": an interval was printed";
  }
}

// Run 1 (cell 1, 292 ms on CPUs 0-1) says 10 steal ticks (0.1 s) more after than before: 0.1 s
// over the cell's 2 runs' CPU time, (0.292 + 0.243 s) x 2 CPUs = 1.07 s: 9.3 %, above the 2 %.
TEST_F(MainJobVerdicts, StealAboveTwoPercentOfRunTimeIsANoiseReason) {
  build_from(kMainJob,
             "UPDATE runs SET result = json_set(result, '$.environment.steal_after', 10) "
             "WHERE id = 1;");
  const ReportData d = load();
  ASSERT_FALSE(d.rows.empty());
  const std::string noise = statistics::noise_text(d.rows[0].noise);
  EXPECT_NE(noise.find("steal 9.3% of run time"), std::string::npos) << noise;
  EXPECT_EQ(statistics::noise_text(d.rows[1].noise).find("steal"), std::string::npos);
  EXPECT_NE(report_to_json(d)["rows"][0]["noise"].dump().find("steal"), std::string::npos);
}

}  // namespace
}  // namespace topolab::report
