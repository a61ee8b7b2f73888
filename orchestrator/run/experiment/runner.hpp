#pragma once
// Runs an experiment into a results store: one start (boot) per guest configuration, every
// benchmark x repetition of its cells in a seeded random order, each result committed as it
// arrives. Re-running resumes: runs already stored are skipped, the rest executed. A cell whose
// guest-seen topology differs from the intended one is measured and flagged (status kept, the
// mismatch recorded per cell and per boot), never silently reported as matching.
//
// Several hosts (issue 16): every cell runs once per host. Each host is prepared (its topology
// read and every configuration planned through its own connection) before anything is written;
// a configuration the planner refuses on a host is recorded "does-not-fit" there with the
// reason. Then one worker thread per host runs that host's configurations one at a time
// (parallel across hosts, serial within one) and commits to the one store under a mutex. A host
// that becomes unreachable fails its current cell with the reason and stops; the others carry on.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "orchestrator/results/store/result_store.hpp"
#include "orchestrator/run/experiment/backend.hpp"
#include "orchestrator/run/experiment/experiment.hpp"
#include "orchestrator/run/experiment/progress.hpp"
#include "orchestrator/run/experiment/shard.hpp"

namespace topolab::experiment {

// What a run did, counted the same way for one host and for the whole run.
struct RunCounts {
  int cells = 0, cells_done = 0, cells_failed = 0, cells_mismatch = 0, cells_does_not_fit = 0;
  int boots = 0;
  int runs_executed = 0, runs_skipped = 0, runs_failed = 0, runs_adaptive = 0;
  int hang_reboots = 0;     // configurations booted again after their guest stopped answering
  double benchmark_ms = 0;  // sum of the benchmark runs' durations (host clock)
  RunCounts& operator+=(const RunCounts&);
  nlohmann::json to_json() const;
};

struct HostSummary : RunCounts {
  std::string host;
  std::string unreachable;  // why the host stopped answering mid-run ("" when it did not)
  nlohmann::json to_json() const;
};

struct RunSummary : RunCounts {
  double wall_ms = 0;              // whole run() call
  std::vector<HostSummary> hosts;  // one per host, in the experiment's order
  nlohmann::json to_json() const;
};

// One host of a run: the backend built from that host's URI alone (not owned).
struct HostSlot {
  std::string host;
  Backend* backend = nullptr;
};

// Errors are returned only for problems that stop the whole experiment (store unwritable,
// invalid design, a host that cannot be prepared, nothing fits anywhere); a failed boot or
// benchmark is recorded in the store and the rest continue.
// A shard (issue 30) runs only its configurations; every cell of the experiment is still
// recorded (pending until its shard runs), so a merged store knows the whole design and a
// shard whose task never ran shows as pending cells. Resume checks the whole experiment.
Result<RunSummary> run_experiment(const Experiment&, const std::vector<HostSlot>&,
                                  store::ResultStore&, Progress&, const Shard& shard = {});
// One host: the backend's own.
Result<RunSummary> run_experiment(const Experiment&, Backend&, store::ResultStore&, Progress&);

}  // namespace topolab::experiment
