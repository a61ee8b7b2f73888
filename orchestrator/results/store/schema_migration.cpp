// Opening an older store for writing brings it to the newest schema (ResultStore::migrate),
// inside open()'s transaction.
#include <utility>
#include <vector>

#include "orchestrator/results/store/result_store.hpp"
#include "orchestrator/results/store/sqlite_statement.hpp"
#include "orchestrator/results/store/store_schema.hpp"

namespace topolab::store {
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

Result<bool> ResultStore::has_column(const char* table, const char* column) {
  bool found = false;
  TL_TRY(statement(std::string("SELECT name FROM pragma_table_info('") + table + "')")
             .for_each_row(std::string("read the ") + table + " table",
                           [&](const Statement& row) { found = found || row.text(0) == column; }));
  return found;
}

// Inside open()'s transaction: brings an older store to the newest schema, refuses a newer one.
Result<void> ResultStore::migrate() {
  // A temporary statement, finalized before the cells rebuild: DROP TABLE fails while one reads.
  TL_ASSIGN(const auto version, statement("SELECT value FROM meta WHERE key='schema_version'")
                                    .one_row("read the schema version",
                                             [](const Statement& row) { return row.text(0); }));
  if (!known_schema(version)) return unknown_schema(path_, version, ": use a new --store");
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

// Schema 4: the cells table is rebuilt with host in its UNIQUE key (SQLite cannot alter a
// constraint), keeping every id so runs, failures and boots still point at their cells; then
// every old row gets the host its experiment ran on.
Result<void> ResultStore::migrate_cells_host() {
  TL_ASSIGN(const bool has, has_column("cells", "host"));
  if (has) return {};
  TL_TRY(exec("CREATE TABLE cells_v4" + table_body("cells", 4) + kCellsV4Copy));
  TL_ASSIGN(const auto hosts, statement("SELECT id, context, spec FROM experiments")
                                  .rows("read experiments to migrate", [](const Statement& row) {
                                    return std::pair(row.i64(0),
                                                     recorded_host(row.json(1), row.json(2)));
                                  }));
  for (const auto& [id, host] : hosts) {
    for (const char* sql : {"UPDATE cells SET host=?2 WHERE experiment_id=?1",
                            "UPDATE boots SET host=?2 WHERE experiment_id=?1",
                            "UPDATE runs SET host=?2 WHERE cell_id IN "
                            "(SELECT id FROM cells WHERE experiment_id=?1)"}) {
      TL_TRY(statement(sql).bind(1, id).bind(2, host).run("migrate hosts"));
    }
  }
  return {};
}

}  // namespace topolab::store
