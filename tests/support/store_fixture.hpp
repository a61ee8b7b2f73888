#pragma once
// A results store built from a data fixture. A fixture holds only rows; its first line names the
// schema version they were written for:
//   -- store schema 2
// and the tables come from ResultStore::schema_sql(2), the store's own description of that
// version: a copied CREATE TABLE in every fixture would go stale when the schema changes. A file
// without that line is run as it is (a store of a schema topolab does not know, e.g. 999).
#include <sqlite3.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "orchestrator/results/store/result_store.hpp"

namespace topolab::testing {

// Builds `db` from `fixture`, then runs `extra_sql` on it (tests tamper with single rows).
// Returns "" when built, else why not.
inline std::string build_store(const std::filesystem::path& db,
                               const std::filesystem::path& fixture,
                               const std::string& extra_sql = "") {
  std::ifstream in(fixture, std::ios::binary);
  if (!in) return "cannot read " + fixture.string();
  std::stringstream text;
  text << in.rdbuf();
  std::string sql = text.str();
  const std::string directive = "-- store schema ";
  if (sql.rfind(directive, 0) == 0)
    sql = store::ResultStore::schema_sql(std::atoi(sql.c_str() + directive.size())) + sql;
  sql += extra_sql;
  sqlite3* handle = nullptr;
  const int opened = sqlite3_open(db.c_str(), &handle);
  char* err = nullptr;
  const int rc =
      opened == SQLITE_OK ? sqlite3_exec(handle, sql.c_str(), nullptr, nullptr, &err) : opened;
  std::string message;
  if (rc != SQLITE_OK)
    message = fixture.string() + " into " + db.string() + ": " + (err ? err : sqlite3_errstr(rc));
  sqlite3_free(err);
  sqlite3_close(handle);
  return message;
}

}  // namespace topolab::testing
