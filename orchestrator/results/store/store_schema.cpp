#include "orchestrator/results/store/store_schema.hpp"

#include <vector>

#include "orchestrator/results/store/result_store.hpp"

namespace topolab::store {
namespace {

// Columns or constraints of a table, with the schema versions that have them.
struct SchemaPart {
  const char* sql;
  int since = 1;
  int until = kSchemaVersion;
};
struct SchemaTable {
  const char* name;
  std::vector<SchemaPart> parts;
};

// The one description of every schema version: a new store gets the newest, the schema-4 cells
// rebuild its cells table, and tests build stores of older versions from it (their data
// fixtures hold only rows, so no copy of the schema goes stale).
const std::vector<SchemaTable>& schema_tables() {
  static const std::vector<SchemaTable> tables = {
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

}  // namespace

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

bool is_store_table(const std::string& name) {
  for (const auto& t : schema_tables())
    if (name == t.name) return true;
  return false;
}

bool known_schema(const std::string& version) {
  for (int v = 1; v <= kSchemaVersion; ++v)
    if (version == std::to_string(v)) return true;
  return false;
}

Error unknown_schema(const std::filesystem::path& path, const std::string& version,
                     const std::string& advice) {
  return make_error(ErrorKind::input, "store " + path.string() + ": schema version '" + version +
                                          "' is not one this topolab knows (1 to " +
                                          std::to_string(kSchemaVersion) +
                                          "); it was written by another version" + advice);
}

std::string ResultStore::schema_sql(int version) {
  std::string sql;
  for (const auto& t : schema_tables())
    sql +=
        std::string("CREATE TABLE IF NOT EXISTS ") + t.name + table_body(t.name, version) + ";\n";
  return sql + "INSERT OR IGNORE INTO meta(key, value) VALUES('schema_version', '" +
         std::to_string(version) + "');\n";
}

}  // namespace topolab::store
