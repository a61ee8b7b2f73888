#include "orchestrator/results/store/sqlite_statement.hpp"

#include <cmath>

#include "common/json_text.hpp"
#include "common/terminal_text.hpp"
#include "common/uri_text.hpp"
#include "protocol/protocol.hpp"

namespace topolab::store {

static_assert(Statement::kMaxStoredJsonBytes == 4 * protocol::kMaxLineBytes);

Statement::Statement(sqlite3* db, const std::string& sql, SqlError error)
    : error_(std::move(error)) {
  sqlite3_stmt* prepared = nullptr;
  const int rc = sqlite3_prepare_v2(db, sql.c_str(), -1, &prepared, nullptr);
  stmt_.reset(prepared);
  if (rc != SQLITE_OK) stmt_.reset();
}

Statement& Statement::bind(int i, const std::string& s) {
  if (prepared())
    sqlite3_bind_text(stmt_.get(), i, s.c_str(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
  return *this;
}

Statement& Statement::bind(int i, std::int64_t v) {
  if (prepared()) sqlite3_bind_int64(stmt_.get(), i, v);
  return *this;
}

Statement& Statement::bind(int i, double v) {
  if (!prepared()) return *this;
  if (std::isfinite(v))
    sqlite3_bind_double(stmt_.get(), i, v);
  else
    sqlite3_bind_null(stmt_.get(), i);
  return *this;
}

Statement& Statement::bind_json(int i, const nlohmann::json& j) {
  if (!j.is_null()) return bind(i, json_line(j));
  if (prepared()) sqlite3_bind_null(stmt_.get(), i);
  return *this;
}

Result<void> Statement::run(const std::string& what) {
  if (!prepared() || step() != SQLITE_DONE) return error_(what);
  return {};
}

int Statement::step() { return sqlite3_step(stmt_.get()); }

std::string Statement::text(int col) const {
  auto p = sqlite3_column_text(stmt_.get(), col);
  return p ? reinterpret_cast<const char*>(p) : "";
}

nlohmann::json Statement::json(int col) const {
  if (is_null(col)) return nullptr;
  auto value = protocol::parse_json_text(text(col), kMaxStoredJsonBytes);
  return value ? std::move(*value) : nlohmann::json(nlohmann::json::value_t::discarded);
}

std::string Statement::host_text(int col) const {
  return bounded_text(redacted_uri(text(col)), kMaxStoredHostBytes);
}

double Statement::real(int col) const {
  if (is_null(col)) return std::nan("");
  return sqlite3_column_double(stmt_.get(), col);
}

}  // namespace topolab::store
