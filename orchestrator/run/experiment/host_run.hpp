#pragma once
// Internal to orchestrator/run/experiment: one host's share of an experiment run (runner.cpp).
// It owns that host's cell states and summary; the design is shared read-only, the store is
// shared through SharedStore (one mutex around every call) and progress through its Lane.
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/interrupt_gate.hpp"
#include "orchestrator/results/store/result_store.hpp"
#include "orchestrator/run/experiment/backend.hpp"
#include "orchestrator/run/experiment/experiment.hpp"
#include "orchestrator/run/experiment/matrix.hpp"
#include "orchestrator/run/experiment/progress.hpp"
#include "orchestrator/run/experiment/runner.hpp"

namespace topolab::experiment::detail {

// The one store of a run, written by every host's worker thread: SQLite's connection and its
// batches are not shared between threads safely, so one writer at a time (issue 16).
// After SIGINT/SIGTERM nothing more is written: a run or cell failed by the interrupt's own
// cleanup (its domain destroyed, the next start refused) is not a result, and the interrupted
// cell stays 'running' for the rerun to complete (signal sweep, bench/signal_sweep.py).
class SharedStore {
 public:
  explicit SharedStore(store::ResultStore& s) : s_(s) {}
  template <class F>
  auto with(F&& f) {
    interrupt::hold_if_interrupted();
    std::lock_guard lock(mu_);
    return f(s_);
  }

 private:
  std::mutex mu_;
  store::ResultStore& s_;
};

// What every host runs: the expanded cells and configurations (read-only once built).
struct Design {
  const Experiment& e;
  std::vector<Cell> cells;
  std::vector<Configuration> configs;
  std::map<std::string, nlohmann::json> layouts;  // configuration key -> layout identity
};

class HostRun {
 public:
  HostRun(const Design& d, const HostSlot& slot, SharedStore& store, Progress::Lane lane)
      : d_(d), backend_(*slot.backend), store_(store), lane_(lane) {
    summary_.host = slot.host;
  }
  // Records this host's cells (the caller holds the store and a batch): ids, stored runs,
  // does-not-fit cells with the planner's reason.
  Result<void> load_cells(store::ResultStore& s, std::int64_t experiment_id);
  int missing_runs(int cell) const;
  bool fits(int cell) const;
  // The worker: this host's configurations one at a time. An error stops the whole run (the
  // store failed); a failed boot or a lost host is recorded and returns ok.
  Result<void> run();
  const HostSummary& summary() const { return summary_; }

 private:
  struct CellState {
    std::int64_t id = 0;
    std::set<std::pair<int, int>> done;  // (benchmark, repetition) already stored
    std::string error;
    int failed_runs = 0;
    // os.* values read back unlike the request: {"level","intended","seen"} like a topology
    // mismatch, each distinct one once.
    nlohmann::json condition_mismatches = nlohmann::json::array();
  };
  // One boot of a configuration and its pending runs; `alive` false when the target stopped
  // answering (the runs left then failed fast); `hung` when it did so by letting a run wait out
  // its whole time bound (not by closing the connection: a killed QEMU, a lost host).
  struct BootOutcome {
    bool started = false;
    bool alive = true;
    bool hung = false;
    std::int64_t boot_id = 0;
    nlohmann::json mismatches;
  };

  // The configuration's runs not stored yet, in its seeded order; `stored` counts the others.
  std::vector<RunSpec> pending_runs(const Configuration& config, std::uint64_t seed,
                                    int* stored = nullptr) const;
  Result<void> fail_configuration(const Configuration& config, const std::string& error);
  Result<void> settle_complete_cells(const Configuration& config);
  Result<void> run_configuration(const Configuration& config);
  Result<BootOutcome> boot_and_run(const Configuration& config, std::uint64_t seed);
  bool reboot_after_hang(const Configuration& config, const BootOutcome& first);
  // The same work: one configuration, one benchmark, the same parameters (the cells of os.*
  // or replicate factors share them, and every run of one cell does).
  std::string work_key(int cell, int bench) const;
  std::optional<double> slowest_run(const std::string& work) const;  // ms, this process's runs
  Result<void> finish_cells(const Configuration& config, const nlohmann::json& mismatches,
                            std::int64_t boot_id);
  // One run (execute): its attempt, then its result or failure recorded.
  struct RunAttempt {
    Result<protocol::BenchmarkResult> result =
        make_error(ErrorKind::guest, "target stopped answering earlier in this boot");
    nlohmann::json conditions;  // the os.* settings it ran under (null: none)
    double ms = 0;
    bool waited_out = false;  // the run failed by using its whole time bound
  };
  Result<void> execute(Target& t, const RunSpec& r, std::int64_t boot_id, bool& alive);
  RunAttempt attempt_run(Target& t, const RunSpec& r, bool alive);
  Result<void> record_failed_run(Target& t, const RunSpec& r, std::int64_t boot_id,
                                 const Error& error, bool waited_out, bool& alive);
  Result<void> record_run(const RunSpec& r, std::int64_t boot_id,
                          const protocol::BenchmarkResult& result, const nlohmann::json& conditions,
                          double ms);
  // Configures the agent to the cell's os.* settings: {NAME: {"requested", "seen"}} for the
  // run's record (null without settings), or why the run cannot go on (a refused setting).
  Result<nlohmann::json> apply_conditions(Target& t, int cell);
  // Adaptive repetitions (host_run_adaptive.cpp).
  std::vector<double> values(int cell, int bench);
  int next_rep(int cell, int bench) const;
  bool wants_more(int cell, int bench);
  bool needs_adaptive(const Configuration& config);
  Result<void> adaptive_runs(Target& t, const Configuration& config, std::int64_t boot_id,
                             bool& alive);
  void check_host();

  const Design& d_;
  Backend& backend_;
  SharedStore& store_;
  Progress::Lane lane_;
  std::int64_t exp_id_ = 0;
  std::vector<CellState> state_;              // by cell index
  std::map<std::string, std::string> unfit_;  // configuration key -> the planner's reason
  // The store's cell rows by id, read once when a configuration has nothing left to run (not
  // for a fresh run): a cell whose runs are all stored but whose status is not "done" (the
  // process ended by a signal between its last run and finish_cells) is marked done then,
  // keeping its boot and mismatches.
  std::optional<std::map<std::int64_t, store::StoredCell>> stored_cells_;
  bool hung_in_boot_ = false;  // this boot's target stopped answering after a run timed out
  std::map<std::string, double> slowest_ms_;  // by work_key: the slowest run of this process
  HostSummary summary_;
};

}  // namespace topolab::experiment::detail
