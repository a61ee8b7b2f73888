// A store is a file from anywhere: what SQLite would run or read from a hostile or damaged one
// (redteam wave 4). ResultStore::check_store_file refuses, at open, a schema holding anything
// topolab never creates (a trigger ran its SQL on our INSERT; a view hung `report`) and a file
// that fails SQLite's quick_check (reads ended early, silently); a value over the length limit
// is an error of the read, never a shorter list.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "orchestrator/results/store/result_store.hpp"

namespace topolab::store {
namespace {

namespace fs = std::filesystem;

class StoreFileChecks : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/topolab-store-checks-XXXXXX";
    dir_ = mkdtemp(tmpl);
    path_ = dir_ / "results.db";
    auto s = ResultStore::open(path_);
    ASSERT_TRUE(s) << s.error().message;
    auto exp = (*s)->begin_experiment("e", {{"repetitions", 1}}, nullptr, nullptr);
    ASSERT_TRUE(exp) << exp.error().message;
    experiment_id_ = *exp;
    for (int pos = 0; pos < 2; ++pos) {
      nlohmann::json f = {{"pos", pos}};
      auto c = (*s)->upsert_cell(
          *exp, {f.dump(), f.dump(), f, "pos=" + std::to_string(pos), pos, nullptr, "local"});
      ASSERT_TRUE(c) << c.error().message;
    }
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Raw SQL on the file, as an attacker with a plain sqlite3 would write it.
  void tamper(const std::string& sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
    char* err = nullptr;
    const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
    const std::string message = err ? err : "";
    sqlite3_free(err);
    sqlite3_close(db);
    ASSERT_EQ(rc, SQLITE_OK) << message;
  }

  int meta_rows(const std::string& key) {
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open_v2(path_.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    sqlite3_stmt* q = nullptr;
    sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM meta WHERE key=?1", -1, &q, nullptr);
    sqlite3_bind_text(q, 1, key.c_str(), -1, SQLITE_TRANSIENT);
    const int n = sqlite3_step(q) == SQLITE_ROW ? sqlite3_column_int(q, 0) : -1;
    sqlite3_finalize(q);
    sqlite3_close(db);
    return n;
  }

  // Both opens refuse, naming the store and `what`.
  void expect_refused(const std::string& what) {
    auto w = ResultStore::open(path_);
    ASSERT_FALSE(w) << "opened for writing";
    EXPECT_NE(w.error().message.find(path_.string()), std::string::npos) << w.error().message;
    EXPECT_NE(w.error().message.find(what), std::string::npos) << w.error().message;
    auto r = ResultStore::open_read_only(path_);
    ASSERT_FALSE(r) << "opened read-only";
    EXPECT_NE(r.error().message.find(what), std::string::npos) << r.error().message;
  }

  fs::path dir_, path_;
  std::int64_t experiment_id_ = 0;
};

TEST_F(StoreFileChecks, UntouchedStoreOpensBothWays) {
  ASSERT_TRUE(ResultStore::open(path_));
  auto r = ResultStore::open_read_only(path_);
  ASSERT_TRUE(r) << r.error().message;
  auto cells = (*r)->cells(experiment_id_);
  ASSERT_TRUE(cells) << cells.error().message;
  EXPECT_EQ(cells->size(), 2u);
}

TEST_F(StoreFileChecks, APlantedTriggerIsRefusedAndNeverRuns) {
  tamper(
      "CREATE TRIGGER planted AFTER INSERT ON cells BEGIN "
      "INSERT OR REPLACE INTO meta VALUES('pwned', 'trigger ran'); END;");
  expect_refused("holds a trigger 'planted'");
  // Before: open() went on to record cells, and SQLite ran the trigger on that INSERT.
  EXPECT_EQ(meta_rows("pwned"), 0);
}

TEST_F(StoreFileChecks, AnEndlessViewStandingInForATableIsRefusedBeforeAnyRead) {
  tamper(
      "DROP TABLE failures; CREATE VIEW failures AS WITH RECURSIVE c(x) AS "
      "(SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x AS id, 1 AS cell_id, NULL AS boot_id, "
      "0 AS benchmark_index, 0 AS repetition, 'e' AS error, '' AS at FROM c;");
  expect_refused("holds a view 'failures'");
}

TEST_F(StoreFileChecks, AnIndexOrTableTopolabNeverCreatesIsRefused) {
  tamper("CREATE INDEX planted_index ON runs(abs(value));");
  expect_refused("holds an index 'planted_index'");
  tamper("DROP INDEX planted_index; CREATE TABLE planted_table(x);");
  expect_refused("holds a table 'planted_table'");
}

TEST_F(StoreFileChecks, ADamagedFileIsRefusedNotReadAsFewerRows) {
  // The cells table pointed at the (empty) failures b-tree: reads gave no cells and no error.
  tamper(
      "PRAGMA writable_schema = ON; UPDATE sqlite_master SET rootpage = "
      "(SELECT rootpage FROM sqlite_master WHERE name = 'failures') WHERE name = 'cells';");
  expect_refused("the file is damaged");
}

TEST_F(StoreFileChecks, AValueOverTheLengthLimitFailsTheReadInsteadOfEndingIt) {
  // The second cell's label is 20 MB. The row loop used to end at the failing step without a
  // word: checked by removing the check, cells() then returned 0 cells and no error (the ORDER
  // BY reads every row before the first is returned).
  tamper("UPDATE cells SET label = printf('%.*c', 20000000, 'x') WHERE position = 1;");
  auto r = ResultStore::open_read_only(path_);
  ASSERT_TRUE(r) << r.error().message;
  auto cells = (*r)->cells(experiment_id_);
  ASSERT_FALSE(cells) << "read " << cells->size() << " cell(s) without an error";
  EXPECT_NE(cells.error().message.find("string or blob too big"), std::string::npos)
      << cells.error().message;
  EXPECT_NE(cells.error().message.find("16 MiB"), std::string::npos) << cells.error().message;
}

// Another process (here: another connection) holds the write lock: `run` waits the busy
// timeout, then fails in one line saying so; a reader is not blocked (WAL).
TEST_F(StoreFileChecks, ALockedStoreFailsAfterTheBusyTimeoutSayingWhy) {
  sqlite3* holder = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &holder), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(holder, "BEGIN EXCLUSIVE; INSERT INTO meta VALUES('lock', 'held');",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  auto w = ResultStore::open(path_);
  ASSERT_FALSE(w) << "opened for writing while another connection holds the lock";
  EXPECT_NE(w.error().message.find("database is locked"), std::string::npos) << w.error().message;
  EXPECT_NE(w.error().message.find("another process holds the store's lock"), std::string::npos)
      << w.error().message;
  auto r = ResultStore::open_read_only(path_);
  EXPECT_TRUE(r) << r.error().message;
  sqlite3_exec(holder, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(holder);
}

}  // namespace
}  // namespace topolab::store
