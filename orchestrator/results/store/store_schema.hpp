#pragma once
// Internal to orchestrator/results/store: the one description of every schema version of a results
// store (ResultStore::schema_sql builds a store's tables from it).
#include <filesystem>
#include <string>

#include "common/result.hpp"

namespace topolab::store {

// Schema 2 added cells.layout (the resolved layout a cell ran with). Schema 3 added
// experiments.context and boots.context (where the numbers came from: connection URI,
// accelerator, CPU model given to the guest; issue 18). Schema 4 (issue 16) added the host: a
// cell is (experiment, host, cell_key), boots and runs name their host, boots their end time.
// Schema 5 (issue 28) added boots.plan: the placement the guest was booted with
// (plan::guest_plan_to_json), which the report's pictures draw instead of planning again.
// Older stores are migrated when opened for writing (the columns are added, NULL: "not
// recorded"; cells get the host the experiment ran on) and read as they are.
constexpr int kSchemaVersion = 5;

// "(columns and constraints)" of `table` in schema `version`.
std::string table_body(const std::string& table, int version);
// One of the tables topolab creates.
bool is_store_table(const std::string& name);
// "1" to kSchemaVersion: a schema_version this topolab reads.
bool known_schema(const std::string& version);
// The refusal of a store whose schema_version this topolab does not know (a newer one may mean
// something else by the same columns): input to refuse, not a failure to read the file.
// `advice` ends the message.
Error unknown_schema(const std::filesystem::path& path, const std::string& version,
                     const std::string& advice);

}  // namespace topolab::store
