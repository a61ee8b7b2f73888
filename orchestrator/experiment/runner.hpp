#pragma once
// Runs an experiment into a results store: one start (boot) per guest configuration, every
// benchmark x repetition of its cells in a seeded random order, each result committed as it
// arrives. Re-running resumes: runs already stored are skipped, the rest executed. A cell whose
// guest-seen topology differs from the intended one is measured and flagged (status kept, the
// mismatch recorded per cell and per boot), never silently reported as matching.
#include <nlohmann/json.hpp>

#include "common/result.hpp"
#include "orchestrator/experiment/backend.hpp"
#include "orchestrator/experiment/experiment.hpp"
#include "orchestrator/experiment/progress.hpp"
#include "orchestrator/store/result_store.hpp"

namespace topolab::experiment {

struct RunSummary {
  int cells = 0, cells_done = 0, cells_failed = 0, cells_mismatch = 0;
  int boots = 0;
  int runs_executed = 0, runs_skipped = 0, runs_failed = 0, runs_adaptive = 0;
  double wall_ms = 0;       // whole run() call
  double benchmark_ms = 0;  // sum of the benchmark runs' durations (host clock)
  nlohmann::json to_json() const;
};

// Errors are returned only for problems that stop the whole experiment (store unwritable,
// invalid design); a failed boot or benchmark is recorded in the store and the rest continue.
Result<RunSummary> run_experiment(const Experiment&, Backend&, store::ResultStore&, Progress&);

}  // namespace topolab::experiment
