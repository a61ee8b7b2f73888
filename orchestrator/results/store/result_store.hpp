#pragma once
// SQLite results store (WAL). Every result is committed as it arrives, so an interrupted run
// loses at most the run in flight; re-running the same experiment resumes from what is stored.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/result.hpp"
#include "orchestrator/results/store/sqlite_handle.hpp"

namespace topolab::store {

class Statement;  // sqlite_statement.hpp, internal to the store

struct CellRecord {
  std::string key;         // canonical factor levels
  std::string config_key;  // guest-configuration levels
  nlohmann::json factors;  // {"expose":"flat",...}
  std::string label;
  int position = 0;
  // What the cell's guest was: the resolved layout (layout_to_json), null without a guest
  // (backend "host"). Resume compares it (schema 2; NULL in cells of schema-1 stores).
  nlohmann::json layout;
  // The host the cell runs on (schema 4, issue 16): a libvirt URI, "local" for backend "host".
  // A cell is (experiment, host, key): the same levels on two hosts are two cells.
  std::string host;
};

// What one stored result was measured with: enough to refuse a resume whose experiment file
// changed under the same name (a different benchmark, parameter or layout).
struct StoredRunIdentity {
  std::string cell_key, cell_label;
  std::optional<nlohmann::json> layout;  // nullopt: not recorded (a schema-1 store)
  int benchmark_index = 0;
  std::string benchmark;
  nlohmann::json params;  // the parameters the benchmark ran with (factor levels applied)
  std::string host;       // the cell's host (schema 4)
  // The run's environment.conditions ({NAME: {"requested", "seen"}}, issue 25); null without.
  nlohmann::json conditions;
};

struct BootRecord {
  std::int64_t experiment_id = 0;
  std::string config_key;
  std::uint64_t order_seed = 0;  // seed of the randomized run order in this boot
  nlohmann::json intended;       // intended guest topology (topology_to_json)
  nlohmann::json seen;           // guest-seen topology
  nlohmann::json mismatches;     // [] when intended == seen
  nlohmann::json timings;        // define/start/hello ms ...
  nlohmann::json versions;       // agent, kernel, topolab ...
  // Where this boot ran (schema 3): {"accelerator":"kvm"|"tcg"|"host", "accel_reason",
  // "cpu_model":{"mode","model","cache_mode","reason"}}; null when not recorded.
  nlohmann::json context;
  std::string host;     // the host it booted on (schema 4; "" in older stores read as they are)
  std::string started;  // UTC time the boot began; empty: when it is recorded
  // The plan the guest was booted with (schema 5, plan::guest_plan_to_json: per vCPU its host
  // CPUs, emulator/I/O CPUs, groups; and, from stores written after issue 28's accelerator
  // step, "announced": accelerator, CPU model and reason, cells, adjusted levels, and
  // "domain_xml": the XML the guest was defined with); null when not recorded (older stores,
  // host backend).
  nlohmann::json plan;
};

struct RunRecord {
  std::int64_t cell_id = 0;
  std::int64_t boot_id = 0;
  int benchmark_index = 0;
  std::string benchmark;
  int repetition = 0;
  nlohmann::json params;
  nlohmann::json result;  // the benchmark result JSON (samples, summary, details ...)
  double duration_ms = 0;
};

struct StoredExperiment {
  std::int64_t id = 0;
  std::string name;
  nlohmann::json spec, host_topology, versions;
  std::string created, updated;
  // Where the experiment ran (schema 3): {"backend", "connect_uri", "accel_requested"}; null
  // when not recorded (older stores).
  nlohmann::json context;
};

struct StoredCell {
  std::int64_t id = 0;
  CellRecord cell;
  std::string status;  // pending | running | done | failed | does-not-fit
  std::string error;
  nlohmann::json mismatches;  // null when never booted; [] when the topology matched
  std::int64_t boot_id = 0;
};

struct StoredRun {
  std::int64_t id = 0, cell_id = 0, boot_id = 0;
  int benchmark_index = 0, repetition = 0;
  std::string benchmark;
  nlohmann::json params, result;
  double value = 0;  // result.summary.median: one number per repetition
  double duration_ms = 0;
  std::string started;
};

struct StoredBoot {
  std::int64_t id = 0;
  BootRecord boot;
  std::string started;
  std::string finished;  // UTC time its guest was stopped (schema 4); "" while running or older
};

class ResultStore {
 public:
  // Creates the file and schema when missing. A store that cannot be written (read-only file,
  // read-only folder, full disk) gives a one-line error naming the file, and is left untouched.
  static Result<std::unique_ptr<ResultStore>> open(const std::filesystem::path& path);
  static Result<std::unique_ptr<ResultStore>> open_read_only(const std::filesystem::path& path);
  // The tables of schema `version` (1 to the newest) and its schema_version row, as SQL: what a
  // new store is created with (the newest), and what tests build an older store from.
  static std::string schema_sql(int version);
  ~ResultStore() = default;
  ResultStore(const ResultStore&) = delete;
  ResultStore& operator=(const ResultStore&) = delete;

  const std::filesystem::path& path() const { return path_; }

  // Writing side (the runner).
  Result<std::int64_t> begin_experiment(const std::string& name, const nlohmann::json& spec,
                                        const nlohmann::json& host_topology,
                                        const nlohmann::json& versions,
                                        const nlohmann::json& context = nullptr);
  Result<std::int64_t> upsert_cell(std::int64_t experiment_id, const CellRecord& cell);
  // One transaction around many writes: a commit per cell (one fsync each) made loading
  // 100 000 cells take minutes before the first run (redteam). Rolled back on failure.
  Result<void> begin_batch() { return exec("BEGIN IMMEDIATE"); }
  Result<void> commit_batch() { return exec("COMMIT"); }
  void rollback_batch() { (void)exec("ROLLBACK"); }
  Result<std::set<std::pair<int, int>>> completed_runs(std::int64_t cell_id);  // (bench, rep)
  // Distinct (cell, layout, benchmark, params) of every stored run of the named experiment;
  // empty when it has none. Reads only.
  Result<std::vector<StoredRunIdentity>> run_identities(const std::string& experiment_name);
  Result<std::int64_t> add_boot(const BootRecord& boot);
  // When the boot's guest was stopped: with `started`, the interval the host was busy.
  Result<void> finish_boot(std::int64_t boot_id);
  Result<void> set_cell_status(std::int64_t cell_id, const std::string& status,
                               const std::string& error, const nlohmann::json& mismatches,
                               std::int64_t boot_id);
  Result<void> add_run(const RunRecord& run);
  Result<void> add_failure(std::int64_t cell_id, std::int64_t boot_id, int benchmark_index,
                           int repetition, const std::string& error);

  // Reading side (reports, tests).
  Result<std::vector<StoredExperiment>> experiments();
  Result<std::vector<StoredCell>> cells(std::int64_t experiment_id);
  // Refuses (one line, before a row is parsed) a cell whose runs exceed kMaxRunsPerCell rows or
  // kMaxRunTextBytesPerCell of stored text, and a store whose reads exceed kMaxRunsPerStore
  // runs in all: parsed JSON takes ~10x its text (redteam wave 2: 500 000 runs of one cell
  // took 1.09 GB to report).
  Result<std::vector<StoredRun>> runs(std::int64_t cell_id);
  static constexpr std::int64_t kMaxRunsPerCell = 100000;
  static constexpr std::int64_t kMaxRunTextBytesPerCell = 64ll << 20;
  static constexpr std::int64_t kMaxRunsPerStore = 1000000;
  Result<std::vector<StoredBoot>> boots(std::int64_t experiment_id);
  // ErrorKind::not_found when there is no such boot.
  Result<StoredBoot> boot(std::int64_t boot_id);
  Result<std::vector<std::string>> failures(std::int64_t cell_id);

 private:
  ResultStore(SqliteDb db, std::filesystem::path path)
      : db_(std::move(db)), path_(std::move(path)) {}
  // A statement on this store: its failures are db_error(what).
  Statement statement(const std::string& sql);
  Result<void> exec(const std::string& sql);
  Result<void> check_store_file();
  Result<void> migrate();
  Result<bool> has_column(const char* table, const char* column);
  Result<void> migrate_cells_host();
  std::string boot_columns() const;
  bool has_context_ = true;  // false for a schema-1/2 store opened read-only
  bool has_host_ = true;     // false for a schema-1..3 store opened read-only
  bool has_plan_ = true;     // false for a schema-1..4 store opened read-only
  Result<void> check_run_budget(std::int64_t cell_id);
  std::int64_t runs_read_ = 0;  // by runs(), against kMaxRunsPerStore
  Error db_error(const std::string& what) const;
  SqliteDb db_;
  std::filesystem::path path_;
};

}  // namespace topolab::store
