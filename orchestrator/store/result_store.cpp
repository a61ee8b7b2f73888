#include "orchestrator/store/result_store.hpp"

#include <sqlite3.h>

#include <charconv>
#include <cmath>

#include "common/file_io.hpp"
#include "common/json_text.hpp"
#include "common/terminal_text.hpp"
#include "common/uri_text.hpp"
#include "common/utc_time.hpp"
#include "protocol/protocol.hpp"

namespace topolab::store {
namespace {

// Schema 2 added cells.layout (the resolved layout a cell ran with). Schema 3 added
// experiments.context and boots.context (where the numbers came from: connection URI,
// accelerator, CPU model given to the guest; issue 18). Schema 4 (issue 16) added the host: a
// cell is (experiment, host, cell_key), boots and runs name their host, boots their end time.
// Schema 5 (issue 28) added boots.plan: the placement the guest was booted with
// (plan::guest_plan_to_json), which the report's pictures draw instead of planning again.
// Older stores are migrated when opened for writing (the columns are added, NULL: "not
// recorded"; cells get the host the experiment ran on) and read as they are.
constexpr int kSchemaVersion = 5;

// Columns or constraints of a table, with the schema versions that have them.
struct Part {
  const char* sql;
  int since = 1;
  int until = kSchemaVersion;
};
struct Table {
  const char* name;
  std::vector<Part> parts;
};

// The one description of every schema version: a new store gets the newest, the schema-4 cells
// rebuild its cells table, and tests build stores of older versions from it (their data
// fixtures hold only rows, so no copy of the schema goes stale).
const std::vector<Table>& schema_tables() {
  static const std::vector<Table> tables = {
      {"meta", {{"key TEXT PRIMARY KEY, value TEXT NOT NULL"}}},
      {"experiments",
       {{"id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, spec TEXT NOT NULL"},
        {"host_topology TEXT, versions TEXT, created TEXT NOT NULL, updated TEXT NOT NULL"},
        {"context TEXT", 3}}},
      {"cells",
       {{"id INTEGER PRIMARY KEY, experiment_id INTEGER NOT NULL REFERENCES experiments(id)"},
        {"cell_key TEXT NOT NULL, config_key TEXT NOT NULL, factors TEXT NOT NULL"},
        {"label TEXT NOT NULL, position INTEGER NOT NULL"},
        {"status TEXT NOT NULL DEFAULT 'pending', error TEXT, mismatches TEXT, boot_id INTEGER"},
        {"layout TEXT", 2},
        {"host TEXT NOT NULL DEFAULT ''", 4},
        {"UNIQUE(experiment_id, cell_key)", 1, 3},
        {"UNIQUE(experiment_id, host, cell_key)", 4}}},
      {"boots",
       {{"id INTEGER PRIMARY KEY, experiment_id INTEGER NOT NULL REFERENCES experiments(id)"},
        {"config_key TEXT NOT NULL, order_seed TEXT NOT NULL, intended_topology TEXT"},
        {"seen_topology TEXT, mismatches TEXT, timings TEXT, versions TEXT"},
        {"started TEXT NOT NULL"},
        {"context TEXT", 3},
        {"host TEXT", 4},
        {"finished TEXT", 4},
        {"plan TEXT", 5}}},
      {"runs",
       {{"id INTEGER PRIMARY KEY, cell_id INTEGER NOT NULL REFERENCES cells(id), boot_id INTEGER"},
        {"benchmark_index INTEGER NOT NULL, benchmark TEXT NOT NULL, repetition INTEGER NOT NULL"},
        {"params TEXT NOT NULL, samples TEXT, summary TEXT, result TEXT NOT NULL, value REAL"},
        {"unit TEXT, duration_ms REAL, started TEXT NOT NULL"},
        {"host TEXT", 4},
        {"UNIQUE(cell_id, benchmark_index, repetition)"}}},
      {"failures",
       {{"id INTEGER PRIMARY KEY, cell_id INTEGER NOT NULL REFERENCES cells(id), boot_id INTEGER"},
        {"benchmark_index INTEGER, repetition INTEGER, error TEXT NOT NULL, at TEXT NOT NULL"}}},
  };
  return tables;
}

// "(columns and constraints)" of `table` in schema `version`.
std::string table_body(const std::string& table, int version) {
  std::string body = "(\n  ";
  const char* sep = "";
  for (const auto& t : schema_tables()) {
    if (t.name != table) continue;
    for (const auto& p : t.parts) {
      if (p.since > version || version > p.until) continue;
      body += sep;
      body += p.sql;
      sep = ",\n  ";
    }
  }
  return body + ")";
}

// One prepared statement; binds by position starting at 1. It owns the sqlite3_stmt, so it is
// neither copyable nor movable: a copy would finalize the same statement twice.
class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) : db_(db) {
    rc_ = sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr);
  }
  ~Stmt() { sqlite3_finalize(stmt_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  bool prepared() const { return rc_ == SQLITE_OK; }
  Stmt& bind(int i, const std::string& s) {
    sqlite3_bind_text(stmt_, i, s.c_str(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Stmt& bind(int i, std::int64_t v) {
    sqlite3_bind_int64(stmt_, i, v);
    return *this;
  }
  Stmt& bind(int i, int v) { return bind(i, static_cast<std::int64_t>(v)); }
  Stmt& bind(int i, double v) {
    if (std::isfinite(v))
      sqlite3_bind_double(stmt_, i, v);
    else
      sqlite3_bind_null(stmt_, i);
    return *this;
  }
  Stmt& bind_json(int i, const nlohmann::json& j) {
    if (j.is_null()) {
      sqlite3_bind_null(stmt_, i);
      return *this;
    }
    return bind(i, json_line(j));
  }
  int step() { return sqlite3_step(stmt_); }
  // Reading rows: true while a row comes; false at the end or on an error, which failed() then
  // tells. `while (step() == SQLITE_ROW)` ended silently on a damaged page: rows were dropped
  // and the report or resume went on with the rest (redteam wave 4).
  bool row() {
    read_rc_ = sqlite3_step(stmt_);
    return read_rc_ == SQLITE_ROW;
  }
  bool failed() const { return read_rc_ != SQLITE_DONE && read_rc_ != SQLITE_ROW; }
  std::string text(int col) const {
    auto p = sqlite3_column_text(stmt_, col);
    return p ? reinterpret_cast<const char*>(p) : "";
  }
  // A stored value may come from an older or hostile build: bounded like a guest line
  // (size, UTF-8, nesting) and never thrown; unreadable text reads as a discarded value, which
  // every typed reader refuses.
  nlohmann::json json(int col) const {
    if (sqlite3_column_type(stmt_, col) == SQLITE_NULL) return nullptr;
    auto value = protocol::parse_json_text(text(col), kMaxStoredJsonBytes);
    return value ? std::move(*value) : nlohmann::json(nlohmann::json::value_t::discarded);
  }
  static constexpr std::size_t kMaxStoredJsonBytes = 4 * protocol::kMaxLineBytes;
  // A cell's or boot's host: a URI of at most 256 bytes when topolab wrote it. A crafted store's
  // 40 KB host was repeated on every report line (redteam wave 3); head and tail are kept so
  // distinct hosts stay distinct.
  // A password (refused since, or planted) is never read back.
  std::string host_text(int col) const {
    return bounded_text(redacted_uri(text(col)), kMaxStoredHostBytes);
  }
  static constexpr std::size_t kMaxStoredHostBytes = 256;
  std::int64_t i64(int col) const { return sqlite3_column_int64(stmt_, col); }
  bool is_null(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  double real(int col) const {
    if (sqlite3_column_type(stmt_, col) == SQLITE_NULL) return std::nan("");
    return sqlite3_column_double(stmt_, col);
  }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
  int rc_;
  int read_rc_ = SQLITE_DONE;
};

// A store is a file from anywhere (a colleague's, a download, a damaged disk), and SQLite runs
// what a file's schema holds. Before the first read of a row: SQL in the schema may call only
// side-effect-free functions, the schema cannot be rewritten through pragmas, and no value or row
// is longer than kMaxStoredBytes (a crafted 300 MB label ended `report` with bad_alloc).
constexpr int kMaxStoredBytes = 4 * Stmt::kMaxStoredJsonBytes;

void harden(sqlite3* db) {
  sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
  sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, kMaxStoredBytes);
}

bool is_store_table(const std::string& name) {
  for (const auto& t : schema_tables())
    if (name == t.name) return true;
  return false;
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

// A trigger runs its SQL on our INSERT (a planted one rewrote every new result and wrote its own
// rows), a view can stand in for a table (an endless recursive one hung `report`), a damaged
// page made reads end early without an error (cells or boots silently missing): refused here,
// once, before anything is read or written (redteam wave 4).
Result<void> ResultStore::check_store_file() {
  harden(db_);
  Stmt q(db_, "SELECT type, name, tbl_name, COALESCE(sql, '') FROM sqlite_master");
  if (!q.prepared()) return db_error("read its schema");
  while (q.row()) {
    const std::string foreign = foreign_schema_object(q.text(0), q.text(1), q.text(2), q.text(3));
    if (!foreign.empty())
      return make_error(ErrorKind::input, "store " + path_.string() + ": holds " + foreign +
                                              " that topolab never creates; refusing a store "
                                              "whose schema was changed (a trigger or view runs "
                                              "its own SQL)");
  }
  if (q.failed()) return db_error("read its schema");
  // quick_check reads every page once (b-tree structure, not index contents): 0.15 s for 100 000
  // runs. A damaged page is refused instead of read as "fewer rows".
  Stmt check(db_, "PRAGMA quick_check(1)");
  if (!check.prepared() || !check.row()) return db_error("check its integrity");
  std::string verdict = check.text(0);
  const std::string banner = "*** in database main ***\n";
  if (verdict.rfind(banner, 0) == 0) verdict.erase(0, banner.size());
  if (verdict != "ok")
    return make_error(ErrorKind::input, "store " + path_.string() +
                                            ": the file is damaged (SQLite's quick_check: " +
                                            terminal_safe(bounded_text(verdict, 200)) + ")");
  return {};
}

Error ResultStore::db_error(const std::string& what) const {
  std::string msg = sqlite3_errmsg(db_);
  int code = sqlite3_errcode(db_);
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
  return make_error(ErrorKind::io, "store " + path_.string() + ": " + what + ": " + msg + hint);
}

Result<void> ResultStore::exec(const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    sqlite3_free(err);
    return db_error("cannot execute '" + sql.substr(0, 40) + "'");
  }
  return {};
}

Result<std::unique_ptr<ResultStore>> ResultStore::open(const std::filesystem::path& path) {
  TL_TRY(check_sqlite_paths(path));  // a FIFO or device would block SQLite (issue 12)
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  std::unique_ptr<ResultStore> store(new ResultStore(db, path));
  if (rc != SQLITE_OK) return store->db_error("cannot open for writing");
  sqlite3_busy_timeout(db, 5000);
  // SQLite silently falls back to read-only for a write-protected file: refuse instead.
  if (sqlite3_db_readonly(db, "main") == 1)
    return make_error("store " + path.string() + ": the file is read-only; cannot record results");
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
  if (!std::filesystem::exists(path, ec))
    return make_error("store " + path.string() + ": " +
                      (ec ? ec.message() : std::string("no such file")));
  TL_TRY(check_sqlite_paths(path));  // a FIFO or device would block SQLite (issue 12)
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  std::unique_ptr<ResultStore> store(new ResultStore(db, path));
  if (rc != SQLITE_OK) return store->db_error("cannot open");
  sqlite3_busy_timeout(db, 5000);
  TL_TRY(store->check_store_file());
  Stmt s(db, "SELECT value FROM meta WHERE key='schema_version'");
  if (!s.prepared() || s.step() != SQLITE_ROW)
    return make_error("store " + path.string() + ": not a topolab results store");
  // A store from a newer topolab may mean something else by the same columns: refuse it
  // rather than report it as if it were ours (redteam: schema 999 was reported silently).
  const std::string version = s.text(0);
  if (!known_schema(version))
    return make_error("store " + path.string() + ": schema version '" + version +
                      "' is not one this topolab knows (1 to " + std::to_string(kSchemaVersion) +
                      "); it was written by another version");
  // An older store is read as it is: columns it lacks read as NULL ("not recorded").
  TL_ASSIGN(store->has_context_, store->has_column("experiments", "context"));
  TL_ASSIGN(store->has_host_, store->has_column("cells", "host"));
  TL_ASSIGN(store->has_plan_, store->has_column("boots", "plan"));
  return store;
}

ResultStore::~ResultStore() { sqlite3_close(db_); }

bool ResultStore::known_schema(const std::string& version) {
  for (int v = 1; v <= kSchemaVersion; ++v)
    if (version == std::to_string(v)) return true;
  return false;
}

std::string ResultStore::schema_sql(int version) {
  std::string sql;
  for (const auto& t : schema_tables())
    sql +=
        std::string("CREATE TABLE IF NOT EXISTS ") + t.name + table_body(t.name, version) + ";\n";
  return sql + "INSERT OR IGNORE INTO meta(key, value) VALUES('schema_version', '" +
         std::to_string(version) + "');\n";
}

Result<bool> ResultStore::has_column(const char* table, const char* column) {
  Stmt cols(db_, (std::string("SELECT name FROM pragma_table_info('") + table + "')").c_str());
  if (!cols.prepared()) return db_error(std::string("read the ") + table + " table");
  bool found = false;
  while (cols.row()) found = found || cols.text(0) == column;
  if (cols.failed()) return db_error(std::string("read the ") + table + " table");
  return found;
}

// Inside open()'s transaction: brings a schema-1 store to schema 2, refuses a newer one.
Result<void> ResultStore::migrate() {
  std::string version;
  {  // finalized before the cells rebuild: DROP TABLE fails while a statement reads
    Stmt v(db_, "SELECT value FROM meta WHERE key='schema_version'");
    if (!v.prepared() || v.step() != SQLITE_ROW) return db_error("read the schema version");
    version = v.text(0);
  }
  if (!known_schema(version))
    return make_error("store " + path_.string() + ": schema version '" + version +
                      "' is not one this topolab knows (1 to " + std::to_string(kSchemaVersion) +
                      "); it was written by another version: use a new --store");
  for (const auto& [table, column] : {std::pair<const char*, const char*>{"cells", "layout"},
                                      {"experiments", "context"},
                                      {"boots", "context"},
                                      {"boots", "host"},
                                      {"boots", "finished"},
                                      {"boots", "plan"},
                                      {"runs", "host"}}) {
    TL_ASSIGN(const bool has, has_column(table, column));
    if (!has) TL_TRY(exec(std::string("ALTER TABLE ") + table + " ADD COLUMN " + column + " TEXT"));
  }
  TL_TRY(migrate_cells_host());
  has_context_ = true;
  has_host_ = true;
  has_plan_ = true;
  return exec("UPDATE meta SET value='" + std::to_string(kSchemaVersion) +
              "' WHERE key='schema_version'");
}

namespace {

// The host a schema-1..3 experiment ran on: its recorded connection URI (schema 3), "local"
// for backend "host", else the default connection every run used before issue 16.
std::string recorded_host(const nlohmann::json& context, const nlohmann::json& spec) {
  auto text = [](const nlohmann::json& j, const char* k) {
    return j.is_object() && j.contains(k) && j[k].is_string() ? j[k].get<std::string>() : "";
  };
  const std::string uri = text(context, "connect_uri");
  if (!uri.empty() && uri.size() <= 256) return uri;
  if (text(context, "backend") == "host" || text(spec, "backend") == "host") return "local";
  return "qemu:///system";
}

// After "CREATE TABLE cells_v4" with the columns of schema 4.
constexpr const char* kCellsV4Copy = R"SQL(;
INSERT INTO cells_v4(id, experiment_id, cell_key, config_key, factors, label, position, status,
                     error, mismatches, boot_id, layout)
  SELECT id, experiment_id, cell_key, config_key, factors, label, position, status, error,
         mismatches, boot_id, layout FROM cells;
DROP TABLE cells;
ALTER TABLE cells_v4 RENAME TO cells;
)SQL";

}  // namespace

// Schema 4: the cells table is rebuilt with host in its UNIQUE key (SQLite cannot alter a
// constraint), keeping every id so runs, failures and boots still point at their cells; then
// every old row gets the host its experiment ran on.
Result<void> ResultStore::migrate_cells_host() {
  TL_ASSIGN(const bool has, has_column("cells", "host"));
  if (has) return {};
  TL_TRY(exec("CREATE TABLE cells_v4" + table_body("cells", 4) + kCellsV4Copy));
  std::vector<std::pair<std::int64_t, std::string>> hosts;
  {
    Stmt q(db_, "SELECT id, context, spec FROM experiments");
    if (!q.prepared()) return db_error("read experiments to migrate");
    while (q.row()) hosts.emplace_back(q.i64(0), recorded_host(q.json(1), q.json(2)));
    if (q.failed()) return db_error("read experiments to migrate");
  }
  for (const auto& [id, host] : hosts) {
    for (const char* sql : {"UPDATE cells SET host=?2 WHERE experiment_id=?1",
                            "UPDATE boots SET host=?2 WHERE experiment_id=?1",
                            "UPDATE runs SET host=?2 WHERE cell_id IN "
                            "(SELECT id FROM cells WHERE experiment_id=?1)"}) {
      Stmt u(db_, sql);
      if (!u.prepared()) return db_error("migrate hosts");
      u.bind(1, id).bind(2, host);
      if (u.step() != SQLITE_DONE) return db_error("migrate hosts");
    }
  }
  return {};
}

Result<std::int64_t> ResultStore::begin_experiment(const std::string& name,
                                                   const nlohmann::json& spec,
                                                   const nlohmann::json& host_topology,
                                                   const nlohmann::json& versions,
                                                   const nlohmann::json& context) {
  std::string now = utc_now();
  Stmt s(db_,
         "INSERT INTO experiments(name, spec, host_topology, versions, created, updated, context) "
         "VALUES(?1, ?2, ?3, ?4, ?5, ?5, ?6) ON CONFLICT(name) DO UPDATE SET spec=?2, "
         "host_topology=?3, versions=?4, updated=?5, context=?6");
  if (!s.prepared()) return db_error("prepare experiment");
  s.bind(1, name)
      .bind(2, spec.is_null() ? std::string("{}") : json_line(spec))
      .bind_json(3, host_topology)
      .bind_json(4, versions)
      .bind(5, now)
      .bind_json(6, context);
  if (s.step() != SQLITE_DONE) return db_error("record experiment '" + name + "'");
  Stmt q(db_, "SELECT id FROM experiments WHERE name=?1");
  q.bind(1, name);
  if (q.step() != SQLITE_ROW) return db_error("find experiment '" + name + "'");
  return q.i64(0);
}

Result<std::int64_t> ResultStore::upsert_cell(std::int64_t experiment_id, const CellRecord& c) {
  Stmt s(db_,
         "INSERT INTO cells(experiment_id, cell_key, config_key, factors, label, position, "
         "layout, host) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT(experiment_id, host, "
         "cell_key) DO UPDATE SET config_key=?3, factors=?4, label=?5, position=?6, layout=?7");
  if (!s.prepared()) return db_error("prepare cell");
  s.bind(1, experiment_id).bind(2, c.key).bind(3, c.config_key).bind_json(4, c.factors);
  s.bind(5, c.label).bind(6, c.position);
  s.bind(7, json_line(c.layout));  // "null" (no guest) stays distinct from NULL (not recorded)
  s.bind(8, c.host);
  if (s.step() != SQLITE_DONE) return db_error("record cell " + c.label);
  Stmt q(db_, "SELECT id FROM cells WHERE experiment_id=?1 AND host=?2 AND cell_key=?3");
  q.bind(1, experiment_id).bind(2, c.host).bind(3, c.key);
  if (q.step() != SQLITE_ROW) return db_error("find cell " + c.label);
  return q.i64(0);
}

Result<std::set<std::pair<int, int>>> ResultStore::completed_runs(std::int64_t cell_id) {
  Stmt q(db_, "SELECT benchmark_index, repetition FROM runs WHERE cell_id=?1");
  if (!q.prepared()) return db_error("prepare runs");
  q.bind(1, cell_id);
  std::set<std::pair<int, int>> out;
  while (q.row()) out.emplace(static_cast<int>(q.i64(0)), static_cast<int>(q.i64(1)));
  if (q.failed()) return db_error("read runs");
  return out;
}

Result<std::vector<StoredRunIdentity>> ResultStore::run_identities(
    const std::string& experiment_name) {
  Stmt q(db_,
         "SELECT DISTINCT c.cell_key, c.label, c.layout, r.benchmark_index, r.benchmark, "
         "r.params, c.host, CASE WHEN json_valid(r.result) THEN "
         "json_extract(r.result, '$.environment.conditions') END "
         "FROM runs r JOIN cells c ON r.cell_id = c.id JOIN experiments e ON "
         "c.experiment_id = e.id WHERE e.name = ?1 ORDER BY c.position, r.benchmark_index");
  if (!q.prepared()) return db_error("read stored runs");
  q.bind(1, experiment_name);
  std::vector<StoredRunIdentity> out;
  while (q.row()) {
    StoredRunIdentity id;
    id.cell_key = q.text(0);
    id.cell_label = q.text(1);
    if (!q.is_null(2)) id.layout = q.json(2);
    id.benchmark_index = static_cast<int>(q.i64(3));
    id.benchmark = q.text(4);
    id.params = q.json(5);
    id.host = q.host_text(6);
    if (!q.is_null(7)) id.conditions = q.json(7);
    out.push_back(std::move(id));
  }
  if (q.failed()) return db_error("read stored runs");
  return out;
}

Result<std::int64_t> ResultStore::add_boot(const BootRecord& b) {
  Stmt s(db_,
         "INSERT INTO boots(experiment_id, config_key, order_seed, intended_topology, "
         "seen_topology, mismatches, timings, versions, started, context, host, plan) "
         "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)");
  if (!s.prepared()) return db_error("prepare boot");
  s.bind(1, b.experiment_id).bind(2, b.config_key).bind(3, std::to_string(b.order_seed));
  s.bind_json(4, b.intended).bind_json(5, b.seen).bind_json(6, b.mismatches);
  s.bind_json(7, b.timings).bind_json(8, b.versions);
  s.bind(9, b.started.empty() ? utc_now() : b.started).bind_json(10, b.context).bind(11, b.host);
  s.bind_json(12, b.plan);
  if (s.step() != SQLITE_DONE) return db_error("record boot");
  return static_cast<std::int64_t>(sqlite3_last_insert_rowid(db_));
}

Result<void> ResultStore::finish_boot(std::int64_t boot_id) {
  Stmt s(db_, "UPDATE boots SET finished=?2 WHERE id=?1");
  if (!s.prepared()) return db_error("prepare boot end");
  s.bind(1, boot_id).bind(2, utc_now());
  if (s.step() != SQLITE_DONE) return db_error("record boot end");
  return {};
}

Result<void> ResultStore::set_cell_status(std::int64_t cell_id, const std::string& status,
                                          const std::string& error,
                                          const nlohmann::json& mismatches, std::int64_t boot_id) {
  Stmt s(db_, "UPDATE cells SET status=?2, error=?3, mismatches=?4, boot_id=?5 WHERE id=?1");
  if (!s.prepared()) return db_error("prepare cell status");
  s.bind(1, cell_id).bind(2, status).bind(3, error).bind_json(4, mismatches).bind(5, boot_id);
  if (s.step() != SQLITE_DONE) return db_error("record cell status");
  return {};
}

Result<void> ResultStore::add_run(const RunRecord& r) {
  Stmt s(db_,
         "INSERT OR REPLACE INTO runs(cell_id, boot_id, benchmark_index, benchmark, repetition, "
         "params, samples, summary, result, value, unit, duration_ms, started, host) "
         "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, "
         "(SELECT host FROM cells WHERE id=?1))");
  if (!s.prepared()) return db_error("prepare run");
  // The store keeps only validated results (issue 12): the same validator as at receipt.
  TL_ASSIGN_CTX(const protocol::BenchmarkResult valid, protocol::validate_result(r.result),
                "store: not recording a result of " + r.benchmark);
  const nlohmann::json result = protocol::result_to_json(valid);
  s.bind(1, r.cell_id).bind(2, r.boot_id).bind(3, r.benchmark_index).bind(4, r.benchmark);
  s.bind(5, r.repetition).bind_json(6, r.params).bind_json(7, result["samples"]);
  s.bind_json(8, result["summary"])
      .bind(9, json_line(result))
      .bind(10, protocol::result_value(valid));
  s.bind(11, valid.unit);
  s.bind(12, r.duration_ms).bind(13, utc_now());
  if (s.step() != SQLITE_DONE) return db_error("record result of " + r.benchmark);
  return {};
}

Result<void> ResultStore::add_failure(std::int64_t cell_id, std::int64_t boot_id,
                                      int benchmark_index, int repetition,
                                      const std::string& error) {
  Stmt s(db_,
         "INSERT INTO failures(cell_id, boot_id, benchmark_index, repetition, error, at) "
         "VALUES(?1, ?2, ?3, ?4, ?5, ?6)");
  if (!s.prepared()) return db_error("prepare failure");
  s.bind(1, cell_id).bind(2, boot_id).bind(3, benchmark_index).bind(4, repetition);
  s.bind(5, error).bind(6, utc_now());
  if (s.step() != SQLITE_DONE) return db_error("record failure");
  return {};
}

Result<std::vector<StoredExperiment>> ResultStore::experiments() {
  const std::string sql =
      std::string("SELECT id, name, spec, host_topology, versions, created, updated, ") +
      (has_context_ ? "context" : "NULL") + " FROM experiments ORDER BY id";
  Stmt q(db_, sql.c_str());
  if (!q.prepared()) return db_error("read experiments");
  std::vector<StoredExperiment> out;
  while (q.row())
    out.push_back(
        {q.i64(0), q.text(1), q.json(2), q.json(3), q.json(4), q.text(5), q.text(6), q.json(7)});
  if (q.failed()) return db_error("read experiments");
  return out;
}

Result<std::vector<StoredCell>> ResultStore::cells(std::int64_t experiment_id) {
  // A schema-1 store opened read-only (never migrated) has no layout column: read NULL instead.
  bool has_layout = false;
  Stmt cols(db_, "SELECT name FROM pragma_table_info('cells')");
  while (cols.prepared() && cols.row()) has_layout = has_layout || cols.text(0) == "layout";
  if (cols.failed()) return db_error("read cells");
  // Grouped by host (one host: ordered by position, as before schema 4).
  const std::string sql = std::string(
                              "SELECT id, cell_key, config_key, factors, label, position, "
                              "status, error, mismatches, boot_id, ") +
                          (has_layout ? "layout" : "NULL") + ", " + (has_host_ ? "host" : "''") +
                          " FROM cells WHERE experiment_id=?1 ORDER BY " +
                          (has_host_ ? "host, position" : "position");
  Stmt q(db_, sql.c_str());
  if (!q.prepared()) return db_error("read cells");
  q.bind(1, experiment_id);
  std::vector<StoredCell> out;
  while (q.row()) {
    StoredCell c;
    c.id = q.i64(0);
    // layout: NULL in schema-1 stores reads as null, like "no guest" (the report's placement
    // pictures say so).
    c.cell = {q.text(1),  q.text(2),      q.json(3), q.text(4), static_cast<int>(q.i64(5)),
              q.json(10), q.host_text(11)};
    c.status = q.text(6);
    c.error = q.text(7);
    c.mismatches = q.json(8);
    c.boot_id = q.i64(9);
    out.push_back(std::move(c));
  }
  if (q.failed()) return db_error("read cells");
  return out;
}

// Limits before expansion: one COUNT/SUM over the cell's rows, then the rows.
Result<void> ResultStore::check_run_budget(std::int64_t cell_id) {
  Stmt q(db_,
         "SELECT COUNT(*), COALESCE(SUM(LENGTH(CAST(result AS BLOB))), 0) + "
         "COALESCE(SUM(LENGTH(CAST(params AS BLOB))), 0) FROM runs WHERE cell_id=?1");
  if (!q.prepared()) return db_error("read runs");
  q.bind(1, cell_id);
  if (q.step() != SQLITE_ROW) return db_error("read runs");
  const std::int64_t rows = q.i64(0), bytes = q.i64(1);
  const std::string where =
      "store " + path_.string() + ": cell id " + std::to_string(cell_id) + " holds ";
  if (rows > kMaxRunsPerCell)
    return make_error(ErrorKind::input, where + std::to_string(rows) + " runs, more than the " +
                                            std::to_string(kMaxRunsPerCell) +
                                            " a report reads of one cell");
  if (bytes > kMaxRunTextBytesPerCell)
    return make_error(ErrorKind::input,
                      where + std::to_string(bytes) + " bytes of stored results, more than the " +
                          std::to_string(kMaxRunTextBytesPerCell) + " a report reads of one cell");
  runs_read_ += rows;
  if (runs_read_ > kMaxRunsPerStore)
    return make_error(ErrorKind::input, "store " + path_.string() + ": more than " +
                                            std::to_string(kMaxRunsPerStore) +
                                            " runs to read for one report");
  return {};
}

Result<std::vector<StoredRun>> ResultStore::runs(std::int64_t cell_id) {
  TL_TRY(check_run_budget(cell_id));
  Stmt q(db_,
         "SELECT id, cell_id, boot_id, benchmark_index, repetition, benchmark, params, result, "
         "value, duration_ms, started FROM runs WHERE cell_id=?1 "
         "ORDER BY benchmark_index, repetition");
  if (!q.prepared()) return db_error("read runs");
  q.bind(1, cell_id);
  std::vector<StoredRun> out;
  while (q.row()) {
    StoredRun r;
    r.id = q.i64(0);
    r.cell_id = q.i64(1);
    r.boot_id = q.i64(2);
    r.benchmark_index = static_cast<int>(q.i64(3));
    r.repetition = static_cast<int>(q.i64(4));
    r.benchmark = q.text(5);
    r.params = q.json(6);
    r.result = q.json(7);
    r.value = q.real(8);
    r.duration_ms = q.real(9);
    r.started = q.text(10);
    out.push_back(std::move(r));
  }
  if (q.failed()) return db_error("read runs");
  return out;
}

namespace {
StoredBoot boot_from_row(const Stmt& q) {
  StoredBoot b;
  b.id = q.i64(0);
  b.boot.experiment_id = q.i64(1);
  b.boot.config_key = q.text(2);
  // from_chars, not stoull: a stored seed that is not a number must not throw in a report.
  const std::string seed = q.text(3);
  b.boot.order_seed = 0;
  std::from_chars(seed.data(), seed.data() + seed.size(), b.boot.order_seed);
  b.boot.intended = q.json(4);
  b.boot.seen = q.json(5);
  b.boot.mismatches = q.json(6);
  b.boot.timings = q.json(7);
  b.boot.versions = q.json(8);
  b.started = q.text(9);
  b.boot.context = q.json(10);
  b.boot.host = q.host_text(11);
  b.finished = q.text(12);
  b.boot.plan = q.json(13);
  return b;
}
}  // namespace

// Schema 1 and 2 stores have no boots.context, schema 1..3 no host/finished, 1..4 no plan:
// NULL there.
std::string ResultStore::boot_columns() const {
  return std::string(
             "SELECT id, experiment_id, config_key, order_seed, intended_topology, "
             "seen_topology, mismatches, timings, versions, started, ") +
         (has_context_ ? "context" : "NULL") + (has_host_ ? ", host, finished" : ", NULL, NULL") +
         (has_plan_ ? ", plan" : ", NULL") + " FROM boots ";
}

Result<std::vector<StoredBoot>> ResultStore::boots(std::int64_t experiment_id) {
  Stmt q(db_, (boot_columns() + "WHERE experiment_id=?1 ORDER BY id").c_str());
  if (!q.prepared()) return db_error("read boots");
  q.bind(1, experiment_id);
  std::vector<StoredBoot> out;
  while (q.row()) out.push_back(boot_from_row(q));
  if (q.failed()) return db_error("read boots");
  return out;
}

Result<StoredBoot> ResultStore::boot(std::int64_t boot_id) {
  Stmt q(db_, (boot_columns() + "WHERE id=?1").c_str());
  if (!q.prepared()) return db_error("read boot");
  q.bind(1, boot_id);
  if (q.step() != SQLITE_ROW) {
    return make_error(ErrorKind::not_found, "boot " + std::to_string(boot_id) + ": no such row");
  }
  return boot_from_row(q);
}

Result<std::vector<std::string>> ResultStore::failures(std::int64_t cell_id) {
  Stmt q(db_, "SELECT error FROM failures WHERE cell_id=?1 ORDER BY id");
  if (!q.prepared()) return db_error("read failures");
  q.bind(1, cell_id);
  std::vector<std::string> out;
  while (q.row()) out.push_back(q.text(0));
  if (q.failed()) return db_error("read failures");
  return out;
}

}  // namespace topolab::store
