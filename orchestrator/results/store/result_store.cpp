#include "orchestrator/results/store/result_store.hpp"

#include <sqlite3.h>

#include "common/file_io.hpp"
#include "common/terminal_text.hpp"
#include "orchestrator/results/store/sqlite_statement.hpp"
#include "orchestrator/results/store/store_schema.hpp"

namespace topolab::store {
namespace {

// A store is a file from anywhere (a colleague's, a download, a damaged disk), and SQLite runs
// what a file's schema holds. Before the first read of a row: SQL in the schema may call only
// side-effect-free functions, the schema cannot be rewritten through pragmas, and no value or row
// is longer than kMaxStoredBytes (a crafted 300 MB label ended `report` with bad_alloc).
constexpr int kMaxStoredBytes = 4 * Statement::kMaxStoredJsonBytes;

void harden(sqlite3* db) {
  sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
  sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, kMaxStoredBytes);
}

// What topolab creates: its tables (plain ones), their automatic indexes (PRIMARY KEY, UNIQUE)
// and SQLite's own bookkeeping tables. "" when `type name` is one of them, else what it is.
std::string foreign_schema_object(const std::string& type, const std::string& name,
                                  const std::string& table, const std::string& sql) {
  const bool internal = name.rfind("sqlite_", 0) == 0;
  if (type == "table" && internal) return "";
  if (type == "table" && is_store_table(name) && sql.rfind("CREATE TABLE ", 0) == 0) return "";
  if (type == "index" && internal && is_store_table(table)) return "";
  return (type == "index" ? "an " : "a ") + type + " '" + terminal_safe(bounded_text(name, 120)) +
         "'";
}

}  // namespace

Statement ResultStore::statement(const std::string& sql) {
  return Statement(db_.get(), sql, [this](const std::string& what) { return db_error(what); });
}

// A trigger runs its SQL on our INSERT (a planted one rewrote every new result and wrote its own
// rows), a view can stand in for a table (an endless recursive one hung `report`), a damaged
// page made reads end early without an error (cells or boots silently missing): refused here,
// once, before anything is read or written (redteam wave 4).
Result<void> ResultStore::check_store_file() {
  harden(db_.get());
  std::string foreign;  // the first object topolab never creates
  auto read = statement("SELECT type, name, tbl_name, COALESCE(sql, '') FROM sqlite_master")
                  .for_each_row("read its schema", [&](const Statement& row) {
                    if (foreign.empty())
                      foreign =
                          foreign_schema_object(row.text(0), row.text(1), row.text(2), row.text(3));
                  });
  if (!foreign.empty())
    return make_error(ErrorKind::input, "store " + path_.string() + ": holds " + foreign +
                                            " that topolab never creates; refusing a store "
                                            "whose schema was changed (a trigger or view runs "
                                            "its own SQL)");
  TL_TRY(read);
  // quick_check reads every page once (b-tree structure, not index contents): 0.15 s for 100 000
  // runs. A damaged page is refused instead of read as "fewer rows".
  TL_ASSIGN(
      auto verdict,
      statement("PRAGMA quick_check(1)").one_row("check its integrity", [](const Statement& row) {
        return row.text(0);
      }));
  const std::string banner = "*** in database main ***\n";
  if (verdict.rfind(banner, 0) == 0) verdict.erase(0, banner.size());
  if (verdict != "ok")
    return make_error(ErrorKind::input, "store " + path_.string() +
                                            ": the file is damaged (SQLite's quick_check: " +
                                            terminal_safe(bounded_text(verdict, 200)) + ")");
  return {};
}

Error ResultStore::db_error(const std::string& what) const {
  std::string msg = sqlite3_errmsg(db_.get());
  int code = sqlite3_errcode(db_.get());
  std::string hint;
  if (code == SQLITE_READONLY) hint = " (the store file or its folder is read-only)";
  if (code == SQLITE_FULL) hint = " (the disk is full)";
  if (code == SQLITE_CANTOPEN) hint = " (cannot open or create the file)";
  if (code == SQLITE_BUSY)
    hint =
        " (another process holds the store's lock: waited 5 s; is another topolab run writing "
        "to it?)";
  if (code == SQLITE_TOOBIG)
    hint = " (a stored value or row over " + std::to_string(kMaxStoredBytes >> 20) +
           " MiB: topolab never writes one)";
  // A file that is no SQLite database, a damaged one, or one holding a value topolab never
  // writes is a store to refuse (input); any other failure is reading or writing the file (io).
  const bool not_a_store = code == SQLITE_NOTADB || code == SQLITE_CORRUPT || code == SQLITE_TOOBIG;
  return make_error(not_a_store ? ErrorKind::input : ErrorKind::io,
                    "store " + path_.string() + ": " + what + ": " + msg + hint);
}

Result<void> ResultStore::exec(const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_.get(), sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    sqlite3_free(err);
    return db_error("cannot execute '" + sql.substr(0, 40) + "'");
  }
  return {};
}

Result<std::unique_ptr<ResultStore>> ResultStore::open(const std::filesystem::path& path) {
  TL_TRY(check_sqlite_paths(path));  // a FIFO or device would block SQLite (issue 12)
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  std::unique_ptr<ResultStore> store(new ResultStore(SqliteDb(db), path));
  if (rc != SQLITE_OK) return store->db_error("cannot open for writing");
  sqlite3_busy_timeout(db, 5000);
  // SQLite silently falls back to read-only for a write-protected file: refuse instead.
  if (sqlite3_db_readonly(db, "main") == 1)
    return make_error(ErrorKind::io,
                      "store " + path.string() + ": the file is read-only; cannot record results");
  TL_TRY(store->check_store_file());
  TL_TRY(store->exec("PRAGMA journal_mode=WAL"));
  TL_TRY(store->exec("PRAGMA synchronous=NORMAL"));
  // Off during the migration: schema 4 rebuilds the cells table (a new UNIQUE), and SQLite
  // only honours the pragma outside a transaction.
  TL_TRY(store->exec("PRAGMA foreign_keys=OFF"));
  TL_TRY(store->exec("BEGIN IMMEDIATE;" + schema_sql(kSchemaVersion)));
  auto migrated = store->migrate();
  if (!migrated) {
    (void)store->exec("ROLLBACK");
    return migrated.error();
  }
  TL_TRY(store->exec("COMMIT"));
  TL_TRY(store->exec("PRAGMA foreign_keys=ON"));
  return store;
}

Result<std::unique_ptr<ResultStore>> ResultStore::open_read_only(
    const std::filesystem::path& path) {
  std::error_code ec;  // the throwing overload aborted on a symlink loop (redteam)
  // A symlink loop or an unreadable folder on the way is a path to refuse, like a layout's
  // (input); only a path that leads nowhere is a missing store (not_found).
  if (!std::filesystem::exists(path, ec))
    return ec ? make_error(ErrorKind::input, "store " + path.string() + ": " + ec.message())
              : make_error(ErrorKind::not_found, "store " + path.string() + ": no such file");
  TL_TRY(check_sqlite_paths(path));  // a FIFO or device would block SQLite (issue 12)
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  std::unique_ptr<ResultStore> store(new ResultStore(SqliteDb(db), path));
  if (rc != SQLITE_OK) return store->db_error("cannot open");
  sqlite3_busy_timeout(db, 5000);
  TL_TRY(store->check_store_file());
  // No meta table, or no version in it: whatever the file is, it is not a store of ours.
  auto version =
      store->statement("SELECT value FROM meta WHERE key='schema_version'")
          .first_row("read the schema version", [](const Statement& row) { return row.text(0); });
  if (!version || !*version)
    return make_error(ErrorKind::input, "store " + path.string() + ": not a topolab results store");
  // A store from a newer topolab may mean something else by the same columns: refuse it
  // rather than report it as if it were ours (redteam: schema 999 was reported silently).
  if (!known_schema(**version)) return unknown_schema(path, **version, "");
  // An older store is read as it is: columns it lacks read as NULL ("not recorded").
  TL_ASSIGN(store->has_context_, store->has_column("experiments", "context"));
  TL_ASSIGN(store->has_host_, store->has_column("cells", "host"));
  TL_ASSIGN(store->has_plan_, store->has_column("boots", "plan"));
  return store;
}

}  // namespace topolab::store
