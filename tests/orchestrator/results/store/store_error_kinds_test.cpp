// Every error of the store has a kind (issue 28), which callers branch on and the CLI turns into
// its exit code: a file that is no store of ours, of a newer schema or damaged is input (65), a
// missing store or row is not_found (66), a failing read or write of the file is io (74).
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "orchestrator/results/store/result_store.hpp"

namespace topolab::store {
namespace {

namespace fs = std::filesystem;

class StoreErrorKinds : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/topolab-store-kinds-XXXXXX";
    dir_ = mkdtemp(tmpl);
    path_ = dir_ / "results.db";
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Raw SQL on the file, as a plain sqlite3 would write it.
  void sql(const std::string& text) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
    const int rc = sqlite3_exec(db, text.c_str(), nullptr, nullptr, nullptr);
    sqlite3_close(db);
    ASSERT_EQ(rc, SQLITE_OK) << text;
  }

  // `what` is in the message and the error is of `kind`.
  template <typename T>
  static void expect_kind(const Result<T>& r, ErrorKind kind, const std::string& what) {
    ASSERT_FALSE(r) << "no error";
    EXPECT_EQ(to_string(r.error().kind), to_string(kind)) << r.error().message;
    EXPECT_NE(r.error().message.find(what), std::string::npos) << r.error().message;
  }

  fs::path dir_, path_;
};

TEST_F(StoreErrorKinds, AMissingStoreIsNotFound) {
  expect_kind(ResultStore::open_read_only(path_), ErrorKind::not_found, "no such file");
}

TEST_F(StoreErrorKinds, ASymlinkLoopIsAPathToRefuse) {
  fs::create_symlink(dir_ / "b.db", dir_ / "a.db");
  fs::create_symlink(dir_ / "a.db", dir_ / "b.db");
  expect_kind(ResultStore::open_read_only(dir_ / "a.db"), ErrorKind::input, "symbolic links");
}

TEST_F(StoreErrorKinds, AnSqliteFileWithoutASchemaVersionIsNotAStore) {
  sql("CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);");
  expect_kind(ResultStore::open_read_only(path_), ErrorKind::input, "not a topolab results store");
}

TEST_F(StoreErrorKinds, AFileThatIsNoDatabaseIsNotAStore) {
  std::ofstream(path_) << "not sqlite at all, but long enough to hold a header of one\n";
  expect_kind(ResultStore::open_read_only(path_), ErrorKind::input, "not a database");
  expect_kind(ResultStore::open(path_), ErrorKind::input, "not a database");
}

TEST_F(StoreErrorKinds, ANewerSchemaIsRefusedAsInputBothWays) {
  ASSERT_TRUE(ResultStore::open(path_));
  sql("UPDATE meta SET value='999' WHERE key='schema_version';");
  expect_kind(ResultStore::open_read_only(path_), ErrorKind::input, "schema version '999'");
  expect_kind(ResultStore::open(path_), ErrorKind::input, "use a new --store");
}

TEST_F(StoreErrorKinds, AMissingBootIsNotFound) {
  auto s = ResultStore::open(path_);
  ASSERT_TRUE(s) << s.error().message;
  expect_kind((*s)->boot(42), ErrorKind::not_found, "boot 42: no such row");
}

TEST_F(StoreErrorKinds, AStoreInAMissingFolderIsAFailureToOpenTheFile) {
  expect_kind(ResultStore::open(dir_ / "no" / "such" / "r.db"), ErrorKind::io,
              "cannot open for writing");
}

}  // namespace
}  // namespace topolab::store
