#include "orchestrator/results/store/merge_db.hpp"

#include <sqlite3.h>
#include <unistd.h>

#include <cstring>

#include "orchestrator/results/store/result_store.hpp"

namespace topolab::store::merge {
namespace {

namespace fs = std::filesystem;

std::string quoted(const std::string& name) {
  std::string out = "\"";
  for (char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string column_list(const std::vector<std::string>& cols) {
  std::string out;
  for (const auto& c : cols) out += (out.empty() ? "" : ", ") + quoted(c);
  return out;
}

// A read-only URI for ATTACH: every byte but unreserved ones percent-encoded, so '?' or '#'
// in a path cannot add URI parameters.
std::string read_only_uri(const fs::path& p) {
  static const char* hex = "0123456789ABCDEF";
  std::string out = "file:";
  for (unsigned char c : fs::absolute(p).string()) {
    if (std::isalnum(c) || std::strchr("/-._~", c))
      out += static_cast<char>(c);
    else
      out += {'%', hex[c >> 4], hex[c & 15]};
  }
  return out + "?mode=ro";
}

Row read_row(const Statement& s, std::size_t n) {
  Row r;
  r.id = s.i64(0);
  for (std::size_t i = 0; i < n; ++i)
    r.values.push_back(Value::read(s.get(), static_cast<int>(i) + 1));
  return r;
}

// OUT's committed content copied into `tmp` by SQLite (VACUUM INTO), OUT opened read-only.
Result<void> copy_store(const fs::path& out, const fs::path& tmp) {
  sqlite3* opened = nullptr;
  const int rc = sqlite3_open_v2(out.c_str(), &opened, SQLITE_OPEN_READONLY, nullptr);
  const SqliteDb src(opened);
  const SqlError copy_error = [&](const std::string&) {
    return make_error(ErrorKind::io,
                      "merge: copy " + out.string() + ": " + sqlite3_errmsg(src.get()));
  };
  if (rc != SQLITE_OK) return copy_error("open");
  return Statement(src.get(), "VACUUM INTO ?1", copy_error).bind(1, tmp.string()).run("copy");
}

}  // namespace

static_assert(Value::kNull == SQLITE_NULL);

Value Value::integer(std::int64_t v) {
  Value out;
  out.type_ = SQLITE_INTEGER;
  out.int_ = v;
  return out;
}

bool Value::is_null() const { return type_ == SQLITE_NULL; }

std::int64_t Value::i64() const { return type_ == SQLITE_INTEGER ? int_ : 0; }

Value Value::read(sqlite3_stmt* s, int col) {
  Value v;
  v.type_ = sqlite3_column_type(s, col);
  if (v.type_ == SQLITE_INTEGER) v.int_ = sqlite3_column_int64(s, col);
  if (v.type_ == SQLITE_FLOAT) v.real_ = sqlite3_column_double(s, col);
  if (v.type_ == SQLITE_TEXT || v.type_ == SQLITE_BLOB) {
    const void* p = v.type_ == SQLITE_TEXT ? static_cast<const void*>(sqlite3_column_text(s, col))
                                           : sqlite3_column_blob(s, col);
    const int n = sqlite3_column_bytes(s, col);
    if (p) v.bytes_.assign(static_cast<const char*>(p), static_cast<std::size_t>(n));
  }
  return v;
}

void Value::bind(sqlite3_stmt* s, int index) const {
  const int n = static_cast<int>(bytes_.size());
  switch (type_) {
    case SQLITE_INTEGER:
      sqlite3_bind_int64(s, index, int_);
      break;
    case SQLITE_FLOAT:
      sqlite3_bind_double(s, index, real_);
      break;
    case SQLITE_TEXT:
      sqlite3_bind_text(s, index, bytes_.data(), n, SQLITE_TRANSIENT);
      break;
    case SQLITE_BLOB:
      sqlite3_bind_blob(s, index, bytes_.data(), n, SQLITE_TRANSIENT);
      break;
    default:
      sqlite3_bind_null(s, index);
  }
}

std::string Value::text() const {
  if (type_ == SQLITE_INTEGER) return std::to_string(int_);
  if (type_ == SQLITE_FLOAT) return std::to_string(real_);
  return bytes_;
}

bool Value::operator==(const Value& o) const {
  return type_ == o.type_ && int_ == o.int_ && real_ == o.real_ && bytes_ == o.bytes_;
}

Result<std::unique_ptr<Db>> Db::begin(const fs::path& out) {
  std::error_code ec;
  const fs::path tmp =
      out.parent_path() / ("." + out.filename().string() + ".merge-" + std::to_string(::getpid()));
  fs::remove(tmp, ec);
  // A WAL beside OUT holds commits the file alone lacks: a copy would lose them.
  if (fs::exists(out, ec) && fs::file_size(out.string() + "-wal", ec) > 0 && !ec)
    return make_error(ErrorKind::input, "merge: " + out.string() +
                                            "-wal is not empty: a process has the store open "
                                            "(or ended without closing it); run again when it "
                                            "is closed");
  if (fs::exists(out, ec)) {
    TL_ASSIGN(auto store, ResultStore::open_read_only(out));  // its file and schema checks
    store.reset();
    if (auto copied = copy_store(out, tmp); !copied) {
      fs::remove(tmp, ec);
      return copied.error();
    }
  }
  {  // creates a new store's schema, or migrates an older OUT's copy to the newest
    auto store = ResultStore::open(tmp);
    if (!store) {
      fs::remove(tmp, ec);
      return store.error().context("merge");
    }
  }
  sqlite3* db = nullptr;
  const int rc =
      sqlite3_open_v2(tmp.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_URI, nullptr);
  std::unique_ptr<Db> out_db(new Db(SqliteDb(db), out, tmp));
  if (rc != SQLITE_OK) return out_db->error("open " + tmp.string());
  sqlite3_busy_timeout(db, 5000);
  // One file to rename: no WAL beside the copy.
  TL_TRY(out_db->exec("PRAGMA journal_mode=DELETE"));
  TL_ASSIGN(out_db->version_, out_db->schema_version("main"));
  // Lookups of rows matched by all their columns; dropped before the commit.
  TL_TRY(out_db->exec("CREATE INDEX merge_boots_lookup ON boots(experiment_id, config_key)"));
  TL_TRY(out_db->exec("CREATE INDEX merge_failures_lookup ON failures(cell_id)"));
  return out_db;
}

Db::~Db() {
  if (committed_) return;
  (void)exec("ROLLBACK");
  db_.reset();  // closed before its files are removed
  std::error_code ec;
  fs::remove(tmp_, ec);
  fs::remove(tmp_.string() + "-journal", ec);
  fs::remove(tmp_.string() + "-wal", ec);
  fs::remove(tmp_.string() + "-shm", ec);
}

Statement Db::statement(const std::string& sql) {
  return Statement(db_.get(), sql, [this](const std::string& what) { return error(what); });
}

Error Db::error(const std::string& what) const {
  return make_error(ErrorKind::io, "merge into " + out_.string() + ": " + what + ": " +
                                       (db_ ? sqlite3_errmsg(db_.get()) : "out of memory"));
}

Result<void> Db::exec(const std::string& sql) {
  if (sqlite3_exec(db_.get(), sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK)
    return error(sql);
  return {};
}

Result<std::string> Db::schema_version(const std::string& schema) {
  TL_ASSIGN(auto version,
            statement("SELECT value FROM " + quoted(schema) + ".meta WHERE key='schema_version'")
                .one_row("read the schema version", [](const Statement& row) {
                  return row.is_null(0) ? std::optional<std::string>() : row.text(0);
                }));
  if (!version) return error("read the schema version");
  return std::move(*version);
}

Result<void> Db::attach(const fs::path& input) {
  Statement a = statement("ATTACH DATABASE ?1 AS src");
  if (!a.prepared()) return error("attach");
  TL_TRY(a.bind(1, read_only_uri(input)).run("attach " + input.string()));
  auto found_version = schema_version("src");
  const std::string found = found_version ? *found_version : "";
  if (found != version_)
    return make_error(ErrorKind::input, input.string() + ": schema version '" + found +
                                            "'; merge reads stores of schema " + version_ +
                                            " only (the newest: `topolab run` on the store "
                                            "migrates an older one)");
  // One transaction per input: SQLite attaches and detaches only outside one. OUT itself
  // changes only by commit()'s rename, so a failure at any input still leaves it untouched.
  return exec("BEGIN IMMEDIATE");
}

Result<void> Db::detach() {
  TL_TRY(exec("COMMIT"));
  return exec("DETACH DATABASE src");
}

Result<std::vector<std::string>> Db::tables(const std::string& schema) {
  return statement("SELECT name FROM " + quoted(schema) +
                   ".sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
      .rows("read tables", [](const Statement& row) { return row.text(0); });
}

Result<std::vector<std::string>> Db::columns(const std::string& schema, const std::string& table) {
  return statement("SELECT name FROM pragma_table_info(?1, ?2) ORDER BY cid")
      .bind(1, table)
      .bind(2, schema)
      .rows("read columns of " + table, [](const Statement& row) { return row.text(0); });
}

Result<std::vector<Row>> Db::rows(const std::string& schema, const std::string& table, bool has_id,
                                  const std::vector<std::string>& cols) {
  const std::string id = has_id ? "id" : "rowid";
  return statement("SELECT " + id + ", " + column_list(cols) + " FROM " + quoted(schema) + "." +
                   quoted(table) + " ORDER BY " + id)
      .rows("read " + table, [&](const Statement& row) { return read_row(row, cols.size()); });
}

Result<std::optional<Row>> Db::find(const std::string& schema, const std::string& table,
                                    bool has_id, const std::vector<std::string>& key,
                                    const std::vector<std::string>& cols, const Row& row) {
  std::string where;
  for (std::size_t k = 0; k < key.size(); ++k)
    where += (k ? " AND " : "") + quoted(key[k]) + " IS ?" + std::to_string(k + 1);
  Statement q =
      statement("SELECT " + std::string(has_id ? "id" : "rowid") + ", " + column_list(cols) +
                " FROM " + quoted(schema) + "." + quoted(table) + " WHERE " + where + " LIMIT 1");
  if (!q.prepared()) return error("look up " + table);
  for (std::size_t k = 0; k < key.size(); ++k)
    for (std::size_t i = 0; i < cols.size(); ++i)
      if (cols[i] == key[k]) row.values[i].bind(q.get(), static_cast<int>(k) + 1);
  return q.first_row("look up " + table,
                     [&](const Statement& found) { return read_row(found, cols.size()); });
}

Result<std::int64_t> Db::insert(const std::string& schema, const std::string& table,
                                const std::vector<std::string>& cols, const Row& row) {
  std::string params;
  for (std::size_t i = 0; i < cols.size(); ++i) params += (i ? ", ?" : "?") + std::to_string(i + 1);
  Statement q = statement("INSERT INTO " + quoted(schema) + "." + quoted(table) + "(" +
                          column_list(cols) + ") VALUES(" + params + ")");
  if (!q.prepared()) return error("insert into " + table);
  for (std::size_t i = 0; i < cols.size(); ++i)
    row.values[i].bind(q.get(), static_cast<int>(i) + 1);
  TL_TRY(q.run("insert into " + table));
  return static_cast<std::int64_t>(sqlite3_last_insert_rowid(db_.get()));
}

Result<void> Db::update(const std::string& schema, const std::string& table, std::int64_t id,
                        const std::vector<std::string>& cols, const Row& row) {
  std::string set;
  for (std::size_t i = 0; i < cols.size(); ++i)
    set += (i ? ", " : "") + quoted(cols[i]) + "=?" + std::to_string(i + 1);
  Statement q = statement("UPDATE " + quoted(schema) + "." + quoted(table) + " SET " + set +
                          " WHERE rowid=?" + std::to_string(cols.size() + 1));
  if (!q.prepared()) return error("update " + table);
  for (std::size_t i = 0; i < cols.size(); ++i)
    row.values[i].bind(q.get(), static_cast<int>(i) + 1);
  return q.bind(static_cast<int>(cols.size()) + 1, id).run("update " + table);
}

Result<void> Db::commit() {
  TL_TRY(exec("DROP INDEX merge_boots_lookup"));
  TL_TRY(exec("DROP INDEX merge_failures_lookup"));
  // sqlite3_close refuses (SQLITE_BUSY) while a statement is open, which its deleter cannot
  // say: none may be, so OUT's copy is closed before it is renamed.
  if (sqlite3_next_stmt(db_.get(), nullptr) != nullptr) return error("close");
  db_.reset();
  std::error_code ec;
  fs::rename(tmp_, out_, ec);
  committed_ = true;
  if (ec) {
    const std::string why = ec.message();
    fs::remove(tmp_, ec);
    return make_error(ErrorKind::io, "merge: rename into " + out_.string() + ": " + why);
  }
  return {};
}

}  // namespace topolab::store::merge
