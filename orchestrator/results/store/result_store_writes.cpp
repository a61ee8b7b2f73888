// The writing side of the store (the runner): every write is committed as it arrives.
#include <sqlite3.h>

#include "common/json_text.hpp"
#include "common/utc_time.hpp"
#include "orchestrator/results/store/result_store.hpp"
#include "orchestrator/results/store/sqlite_statement.hpp"
#include "protocol/protocol.hpp"

namespace topolab::store {
namespace {

// The id an upsert's row was given: its first column.
std::int64_t row_id(const Statement& row) { return row.i64(0); }

}  // namespace

Result<std::int64_t> ResultStore::begin_experiment(const std::string& name,
                                                   const nlohmann::json& spec,
                                                   const nlohmann::json& host_topology,
                                                   const nlohmann::json& versions,
                                                   const nlohmann::json& context) {
  Statement s = statement(
      "INSERT INTO experiments(name, spec, host_topology, versions, created, updated, context) "
      "VALUES(?1, ?2, ?3, ?4, ?5, ?5, ?6) ON CONFLICT(name) DO UPDATE SET spec=?2, "
      "host_topology=?3, versions=?4, updated=?5, context=?6");
  if (!s.prepared()) return db_error("prepare experiment");
  s.bind(1, name)
      .bind(2, spec.is_null() ? std::string("{}") : json_line(spec))
      .bind_json(3, host_topology)
      .bind_json(4, versions)
      .bind(5, utc_now())
      .bind_json(6, context);
  TL_TRY(s.run("record experiment '" + name + "'"));
  return statement("SELECT id FROM experiments WHERE name=?1")
      .bind(1, name)
      .one_row("find experiment '" + name + "'", row_id);
}

Result<std::int64_t> ResultStore::upsert_cell(std::int64_t experiment_id, const CellRecord& c) {
  Statement s = statement(
      "INSERT INTO cells(experiment_id, cell_key, config_key, factors, label, position, "
      "layout, host) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT(experiment_id, host, "
      "cell_key) DO UPDATE SET config_key=?3, factors=?4, label=?5, position=?6, layout=?7");
  if (!s.prepared()) return db_error("prepare cell");
  s.bind(1, experiment_id).bind(2, c.key).bind(3, c.config_key).bind_json(4, c.factors);
  s.bind(5, c.label).bind(6, c.position);
  s.bind(7, json_line(c.layout));  // "null" (no guest) stays distinct from NULL (not recorded)
  s.bind(8, c.host);
  TL_TRY(s.run("record cell " + c.label));
  return statement("SELECT id FROM cells WHERE experiment_id=?1 AND host=?2 AND cell_key=?3")
      .bind(1, experiment_id)
      .bind(2, c.host)
      .bind(3, c.key)
      .one_row("find cell " + c.label, row_id);
}

Result<std::int64_t> ResultStore::add_boot(const BootRecord& b) {
  Statement s = statement(
      "INSERT INTO boots(experiment_id, config_key, order_seed, intended_topology, "
      "seen_topology, mismatches, timings, versions, started, context, host, plan) "
      "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)");
  if (!s.prepared()) return db_error("prepare boot");
  s.bind(1, b.experiment_id).bind(2, b.config_key).bind(3, std::to_string(b.order_seed));
  s.bind_json(4, b.intended).bind_json(5, b.seen).bind_json(6, b.mismatches);
  s.bind_json(7, b.timings).bind_json(8, b.versions);
  s.bind(9, b.started.empty() ? utc_now() : b.started).bind_json(10, b.context).bind(11, b.host);
  s.bind_json(12, b.plan);
  TL_TRY(s.run("record boot"));
  return static_cast<std::int64_t>(sqlite3_last_insert_rowid(db_.get()));
}

Result<void> ResultStore::finish_boot(std::int64_t boot_id) {
  Statement s = statement("UPDATE boots SET finished=?2 WHERE id=?1");
  if (!s.prepared()) return db_error("prepare boot end");
  return s.bind(1, boot_id).bind(2, utc_now()).run("record boot end");
}

Result<void> ResultStore::set_cell_status(std::int64_t cell_id, const std::string& status,
                                          const std::string& error,
                                          const nlohmann::json& mismatches, std::int64_t boot_id) {
  Statement s =
      statement("UPDATE cells SET status=?2, error=?3, mismatches=?4, boot_id=?5 WHERE id=?1");
  if (!s.prepared()) return db_error("prepare cell status");
  s.bind(1, cell_id).bind(2, status).bind(3, error).bind_json(4, mismatches).bind(5, boot_id);
  return s.run("record cell status");
}

Result<void> ResultStore::add_run(const RunRecord& r) {
  Statement s = statement(
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
  return s.run("record result of " + r.benchmark);
}

Result<void> ResultStore::add_failure(std::int64_t cell_id, std::int64_t boot_id,
                                      int benchmark_index, int repetition,
                                      const std::string& error) {
  Statement s = statement(
      "INSERT INTO failures(cell_id, boot_id, benchmark_index, repetition, error, at) "
      "VALUES(?1, ?2, ?3, ?4, ?5, ?6)");
  if (!s.prepared()) return db_error("prepare failure");
  s.bind(1, cell_id).bind(2, boot_id).bind(3, benchmark_index).bind(4, repetition);
  s.bind(5, error).bind(6, utc_now());
  return s.run("record failure");
}

}  // namespace topolab::store
