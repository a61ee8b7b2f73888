#pragma once
// Internal to orchestrator/results/store: one prepared statement, and the one loop every query of
// the store and of the merge reads its rows with (prepare, bind, step to the end, read columns).
#include <sqlite3.h>

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/result.hpp"
#include "orchestrator/results/store/sqlite_handle.hpp"

namespace topolab::store {

// The error of a failed statement from what was being done ("read runs"): the store's and the
// merge's name their file and add SQLite's message.
using SqlError = std::function<Error(const std::string& what)>;

class Statement {
  // What a row mapper (const Statement& -> T) makes of a row.
  template <typename Map>
  using Mapped = std::decay_t<std::invoke_result_t<Map&, const Statement&>>;

 public:
  Statement(sqlite3* db, const std::string& sql, SqlError error);

  bool prepared() const { return stmt_ != nullptr; }
  sqlite3_stmt* get() const { return stmt_.get(); }

  // Binds by position starting at 1. A statement that was not prepared ignores them: its run or
  // read then reports the failure.
  Statement& bind(int i, const std::string& s);
  Statement& bind(int i, std::int64_t v);
  Statement& bind(int i, int v) { return bind(i, static_cast<std::int64_t>(v)); }
  Statement& bind(int i, double v);                      // NaN and infinities as NULL
  Statement& bind_json(int i, const nlohmann::json& j);  // null as NULL

  // A write: error(what) unless it was prepared and ran to its end.
  Result<void> run(const std::string& what);

  // Passes every row to on_row(const Statement&); error(what) when the statement was not
  // prepared or reading stopped before the end. `while (step() == SQLITE_ROW)` ended silently
  // on a damaged page: rows were dropped and the report or resume went on with the rest
  // (redteam wave 4).
  template <typename OnRow>
  Result<void> for_each_row(const std::string& what, OnRow&& on_row) {
    if (!prepared()) return error_(what);
    int rc;
    while ((rc = step()) == SQLITE_ROW) on_row(static_cast<const Statement&>(*this));
    if (rc != SQLITE_DONE) return error_(what);
    return {};
  }

  // Every row, each mapped by map(const Statement&).
  template <typename Map>
  auto rows(const std::string& what, Map&& map) -> Result<std::vector<Mapped<Map>>> {
    std::vector<Mapped<Map>> out;
    TL_TRY(for_each_row(what, [&](const Statement& row) { out.push_back(map(row)); }));
    return out;
  }

  // The first row mapped by map(const Statement&); nullopt when there is none.
  template <typename Map>
  auto first_row(const std::string& what, Map&& map) -> Result<std::optional<Mapped<Map>>> {
    if (!prepared()) return error_(what);
    const int rc = step();
    if (rc == SQLITE_DONE) return std::optional<Mapped<Map>>();
    if (rc != SQLITE_ROW) return error_(what);
    return std::optional<Mapped<Map>>(map(static_cast<const Statement&>(*this)));
  }

  // The first row mapped by map(const Statement&); error(what) when there is none.
  template <typename Map>
  auto one_row(const std::string& what, Map&& map) -> Result<Mapped<Map>> {
    TL_ASSIGN(auto row, first_row(what, std::forward<Map>(map)));
    if (!row) return error_(what);
    return std::move(*row);
  }

  // Column readers of the current row, from 0.
  std::string text(int col) const;  // "" for NULL
  // A stored value may come from an older or hostile build: bounded like a guest line (size,
  // UTF-8, nesting) and never thrown; unreadable text reads as a discarded value, which every
  // typed reader refuses. NULL reads as null.
  nlohmann::json json(int col) const;
  static constexpr std::size_t kMaxStoredJsonBytes = std::size_t{4} << 20;  // 4 guest lines
  // A cell's or boot's host: a URI of at most 256 bytes when topolab wrote it. A crafted store's
  // 40 KB host was repeated on every report line (redteam wave 3); head and tail are kept so
  // distinct hosts stay distinct. A password (refused since, or planted) is never read back.
  std::string host_text(int col) const;
  static constexpr std::size_t kMaxStoredHostBytes = 256;
  std::int64_t i64(int col) const { return sqlite3_column_int64(stmt_.get(), col); }
  bool is_null(int col) const { return sqlite3_column_type(stmt_.get(), col) == SQLITE_NULL; }
  double real(int col) const;  // NaN for NULL

 private:
  int step();

  SqliteStmt stmt_;
  SqlError error_;
};

}  // namespace topolab::store
