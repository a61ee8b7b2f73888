// Redteam (issue 12): a stored cell whose factors column is not a JSON object has no baseline.
// Before, two such cells compared equal (null == null) and each took the other as its baseline:
// the real baseline cell was reported at -97.4 % and the other at +0.0 %, with no warning.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>

#include "common/file_io.hpp"
#include "orchestrator/report/reporter.hpp"
#include "orchestrator/store/result_store.hpp"

namespace topolab::report {
namespace {

namespace fs = std::filesystem;

const fs::path kSql = fs::path(TOPOLAB_TESTS_DIR) / "orchestrator/report/data/two_cells_store.sql";

class StoredFactors : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/topolab-factors-XXXXXX";
    dir_ = mkdtemp(tmpl);
    db_ = dir_ / "s.db";
  }
  void TearDown() override { fs::remove_all(dir_); }
  // Builds the store, then runs `tamper` on it.
  void build(const std::string& tamper) {
    auto sql = read_file(kSql);
    ASSERT_TRUE(sql.ok()) << sql.error().message;
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(db_.c_str(), &db), SQLITE_OK);
    const std::string all = *sql + tamper;
    ASSERT_EQ(sqlite3_exec(db, all.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  }
  ReportData load() {
    auto store = store::ResultStore::open_read_only(db_);
    EXPECT_TRUE(store.ok()) << store.error().message;
    auto data = load_report(**store, "");
    EXPECT_TRUE(data.ok()) << data.error().message;
    return *data;
  }
  fs::path dir_, db_;
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

TEST_F(StoredFactors, StoreOfAnUnknownSchemaIsRefused) {
  build("UPDATE meta SET value='999' WHERE key='schema_version';");
  auto store = store::ResultStore::open_read_only(db_);
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.error().message.find("schema version '999'"), std::string::npos)
      << store.error().message;
}

}  // namespace
}  // namespace topolab::report
