#pragma once
// Internal to store_merge.cpp: the SQLite side of a merge. OUT is built in a temporary file
// beside it (a copy of OUT when it exists, else a new store) inside one transaction, and renamed
// over OUT only by commit(): any failure before leaves OUT as it was and removes the copy. Each
// input is attached read-only and merged in a transaction of its own.
// Table and column names come from our schema; they are still quoted where SQL is built.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "orchestrator/results/store/sqlite_handle.hpp"
#include "orchestrator/results/store/sqlite_statement.hpp"

namespace topolab::store::merge {

// One SQLite value, copied out of its statement; equal when type and bytes are.
class Value {
 public:
  static constexpr int kNull = 5;
  static Value read(sqlite3_stmt* s, int col);
  static Value integer(std::int64_t v);
  void bind(sqlite3_stmt* s, int index) const;
  bool is_null() const;
  std::int64_t i64() const;
  std::string text() const;
  bool operator==(const Value& o) const;

 private:
  int type_ = kNull;  // SQLITE_NULL, checked against sqlite3.h in merge_db.cpp
  std::int64_t int_ = 0;
  double real_ = 0;
  std::string bytes_;  // text or blob
};

struct Row {
  std::int64_t id = 0;  // rowid (the id column where a table has one)
  std::vector<Value> values;
};

class Db {
 public:
  static Result<std::unique_ptr<Db>> begin(const std::filesystem::path& out);
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  // The input as schema "src", read-only, refused unless at OUT's schema (the newest: OUT is
  // created or migrated by ResultStore::open); begins its transaction. detach() commits it and
  // detaches the input.
  Result<void> attach(const std::filesystem::path& input);
  Result<void> detach();
  Result<std::vector<std::string>> tables(const std::string& schema);
  Result<std::vector<std::string>> columns(const std::string& schema, const std::string& table);
  // Every row of schema.table by rowid, `cols` in that order.
  Result<std::vector<Row>> rows(const std::string& schema, const std::string& table, bool has_id,
                                const std::vector<std::string>& cols);
  // The row of schema.table whose `key` columns hold the values `row` has there (cols order).
  Result<std::optional<Row>> find(const std::string& schema, const std::string& table, bool has_id,
                                  const std::vector<std::string>& key,
                                  const std::vector<std::string>& cols, const Row& row);
  Result<std::int64_t> insert(const std::string& schema, const std::string& table,
                              const std::vector<std::string>& cols, const Row& row);
  Result<void> update(const std::string& schema, const std::string& table, std::int64_t id,
                      const std::vector<std::string>& cols, const Row& row);
  // Closes the temporary file and renames it over OUT.
  Result<void> commit();

 private:
  Db(SqliteDb db, std::filesystem::path out, std::filesystem::path tmp)
      : db_(std::move(db)), out_(std::move(out)), tmp_(std::move(tmp)) {}
  // A statement on OUT's copy: its failures are error(what).
  Statement statement(const std::string& sql);
  Result<void> exec(const std::string& sql);
  Result<std::string> schema_version(const std::string& schema);
  Error error(const std::string& what) const;
  SqliteDb db_;
  std::filesystem::path out_, tmp_;
  bool committed_ = false;
  std::string version_;  // OUT's schema version
};

}  // namespace topolab::store::merge
