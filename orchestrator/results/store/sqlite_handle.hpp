#pragma once
// Owned SQLite handles: a database is closed and a statement finalized by its deleter, never by
// hand, so no early return leaks one and none is released twice. sqlite3.h stays out of this
// header: result_store.hpp, which other folders include, holds a SqliteDb.
#include <memory>

struct sqlite3;
struct sqlite3_stmt;

namespace topolab::store {

struct SqliteClose {
  void operator()(sqlite3* db) const noexcept;
};
struct SqliteFinalize {
  void operator()(sqlite3_stmt* stmt) const noexcept;
};

using SqliteDb = std::unique_ptr<sqlite3, SqliteClose>;
using SqliteStmt = std::unique_ptr<sqlite3_stmt, SqliteFinalize>;

}  // namespace topolab::store
