// The reading side of the store (reports, resume, tests). Every query reads its rows through
// Statement::rows or for_each_row, so a read that stops early is an error, never fewer rows.
#include <charconv>

#include "orchestrator/results/store/result_store.hpp"
#include "orchestrator/results/store/sqlite_statement.hpp"

namespace topolab::store {
namespace {

StoredRunIdentity run_identity_from_row(const Statement& q) {
  StoredRunIdentity id;
  id.cell_key = q.text(0);
  id.cell_label = q.text(1);
  if (!q.is_null(2)) id.layout = q.json(2);
  id.benchmark_index = static_cast<int>(q.i64(3));
  id.benchmark = q.text(4);
  id.params = q.json(5);
  id.host = q.host_text(6);
  if (!q.is_null(7)) id.conditions = q.json(7);
  return id;
}

StoredExperiment experiment_from_row(const Statement& q) {
  return {q.i64(0), q.text(1), q.json(2), q.json(3), q.json(4), q.text(5), q.text(6), q.json(7)};
}

StoredCell cell_from_row(const Statement& q) {
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
  return c;
}

StoredRun run_from_row(const Statement& q) {
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
  return r;
}

StoredBoot boot_from_row(const Statement& q) {
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

Result<std::set<std::pair<int, int>>> ResultStore::completed_runs(std::int64_t cell_id) {
  Statement q = statement("SELECT benchmark_index, repetition FROM runs WHERE cell_id=?1");
  if (!q.prepared()) return db_error("prepare runs");
  std::set<std::pair<int, int>> out;
  TL_TRY(q.bind(1, cell_id).for_each_row("read runs", [&](const Statement& row) {
    out.emplace(static_cast<int>(row.i64(0)), static_cast<int>(row.i64(1)));
  }));
  return out;
}

Result<std::vector<StoredRunIdentity>> ResultStore::run_identities(
    const std::string& experiment_name) {
  return statement(
             "SELECT DISTINCT c.cell_key, c.label, c.layout, r.benchmark_index, r.benchmark, "
             "r.params, c.host, CASE WHEN json_valid(r.result) THEN "
             "json_extract(r.result, '$.environment.conditions') END "
             "FROM runs r JOIN cells c ON r.cell_id = c.id JOIN experiments e ON "
             "c.experiment_id = e.id WHERE e.name = ?1 ORDER BY c.position, r.benchmark_index")
      .bind(1, experiment_name)
      .rows("read stored runs", run_identity_from_row);
}

Result<std::vector<StoredExperiment>> ResultStore::experiments() {
  const std::string sql =
      std::string("SELECT id, name, spec, host_topology, versions, created, updated, ") +
      (has_context_ ? "context" : "NULL") + " FROM experiments ORDER BY id";
  return statement(sql).rows("read experiments", experiment_from_row);
}

Result<std::vector<StoredCell>> ResultStore::cells(std::int64_t experiment_id) {
  // A schema-1 store opened read-only (never migrated) has no layout column: read NULL instead.
  TL_ASSIGN(const bool has_layout, has_column("cells", "layout"));
  // Grouped by host (one host: ordered by position, as before schema 4).
  const std::string sql = std::string(
                              "SELECT id, cell_key, config_key, factors, label, position, "
                              "status, error, mismatches, boot_id, ") +
                          (has_layout ? "layout" : "NULL") + ", " + (has_host_ ? "host" : "''") +
                          " FROM cells WHERE experiment_id=?1 ORDER BY " +
                          (has_host_ ? "host, position" : "position");
  return statement(sql).bind(1, experiment_id).rows("read cells", cell_from_row);
}

// Limits before expansion: one COUNT/SUM over the cell's rows, then the rows.
Result<void> ResultStore::check_run_budget(std::int64_t cell_id) {
  TL_ASSIGN(const auto counted,
            statement("SELECT COUNT(*), COALESCE(SUM(LENGTH(CAST(result AS BLOB))), 0) + "
                      "COALESCE(SUM(LENGTH(CAST(params AS BLOB))), 0) FROM runs WHERE cell_id=?1")
                .bind(1, cell_id)
                .one_row("read runs",
                         [](const Statement& row) { return std::pair(row.i64(0), row.i64(1)); }));
  const auto [rows, bytes] = counted;
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
  return statement(
             "SELECT id, cell_id, boot_id, benchmark_index, repetition, benchmark, params, "
             "result, value, duration_ms, started FROM runs WHERE cell_id=?1 "
             "ORDER BY benchmark_index, repetition")
      .bind(1, cell_id)
      .rows("read runs", run_from_row);
}

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
  return statement(boot_columns() + "WHERE experiment_id=?1 ORDER BY id")
      .bind(1, experiment_id)
      .rows("read boots", boot_from_row);
}

Result<StoredBoot> ResultStore::boot(std::int64_t boot_id) {
  TL_ASSIGN(auto found, statement(boot_columns() + "WHERE id=?1")
                            .bind(1, boot_id)
                            .first_row("read boot", boot_from_row));
  if (!found)
    return make_error(ErrorKind::not_found, "boot " + std::to_string(boot_id) + ": no such row");
  return std::move(*found);
}

Result<std::vector<std::string>> ResultStore::failures(std::int64_t cell_id) {
  return statement("SELECT error FROM failures WHERE cell_id=?1 ORDER BY id")
      .bind(1, cell_id)
      .rows("read failures", [](const Statement& row) { return row.text(0); });
}

}  // namespace topolab::store
