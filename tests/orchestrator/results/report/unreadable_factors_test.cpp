// Redteam (issue 12): a stored cell whose factors column is not a JSON object has no baseline.
// Before, two such cells compared equal (null == null) and each took the other as its baseline:
// the real baseline cell was reported at -97.4 % and the other at +0.0 %, with no warning.
#include <gtest/gtest.h>

#include <filesystem>

#include "orchestrator/results/report/reporter.hpp"
#include "orchestrator/results/store/result_store.hpp"
#include "tests/orchestrator/results/report/fixture_store_test.hpp"

namespace topolab::report {
namespace {

namespace fs = std::filesystem;

const fs::path kSql =
    fs::path(TOPOLAB_TESTS_DIR) / "orchestrator/results/report/data/two_cells_store.sql";

class StoredFactors : public FixtureStoreTest {
 protected:
  void build(const std::string& tamper) { build_from(kSql, tamper); }
};

TEST_F(StoredFactors, IntactStoreHasOneBaselineAndOnePenalty) {
  build("");
  auto data = load();
  ASSERT_EQ(data.rows.size(), 2u);
  EXPECT_TRUE(data.rows[0].is_baseline);
  EXPECT_FALSE(data.rows[0].penalty.has_value());
  EXPECT_TRUE(data.rows[1].penalty.has_value()) << "the control: threads=2 vs threads=1";
}

TEST_F(StoredFactors, UnreadableFactorsGiveNoPenalty) {
  build("UPDATE cells SET factors='[1';");
  auto data = load();
  ASSERT_EQ(data.rows.size(), 2u);
  for (const auto& r : data.rows) {
    EXPECT_FALSE(r.is_baseline) << r.cell;
    EXPECT_FALSE(r.penalty.has_value()) << r.cell << ": penalty " << r.penalty.value_or(0);
  }
}

TEST_F(StoredFactors, UnreadableFactorsAreSaidNotSilent) {
  build("UPDATE cells SET factors='[1';");
  auto data = load();
  ASSERT_EQ(data.warnings.size(), 1u);  // one line for both cells: the baseline is set
  EXPECT_NE(data.warnings[0].find("2 cell(s) have unreadable stored factors"), std::string::npos)
      << data.warnings[0];
}

TEST_F(StoredFactors, IntactStoreHasNoWarnings) {
  build("");
  auto data = load();
  EXPECT_TRUE(data.warnings.empty());
  EXPECT_TRUE(data.invalid_runs.empty());
}

TEST_F(StoredFactors, UnreadableSpecDropsPenaltiesAndSaysSo) {
  build("UPDATE experiments SET spec='not json';");
  auto data = load();
  for (const auto& r : data.rows) EXPECT_FALSE(r.penalty.has_value()) << r.cell;
  ASSERT_EQ(data.warnings.size(), 1u);
  EXPECT_NE(data.warnings[0].find("spec is unreadable: no baseline, so no penalties"),
            std::string::npos)
      << data.warnings[0];
}

TEST_F(StoredFactors, RunOfNoStoredBenchmarkIsListedNotDropped) {
  build("UPDATE runs SET benchmark_index=7 WHERE id=(SELECT MIN(id) FROM runs);");
  auto data = load();
  ASSERT_EQ(data.invalid_runs.size(), 1u);
  EXPECT_NE(data.invalid_runs[0].reason.find("benchmark index 7 names no benchmark"),
            std::string::npos)
      << data.invalid_runs[0].reason;
}

TEST_F(StoredFactors, StoreOfAnUnknownSchemaIsRefused) {
  build("UPDATE meta SET value='999' WHERE key='schema_version';");
  auto store = store::ResultStore::open_read_only(db_);
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.error().message.find("schema version '999'"), std::string::npos)
      << store.error().message;
}

}  // namespace
}  // namespace topolab::report
