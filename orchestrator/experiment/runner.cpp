#include "orchestrator/experiment/runner.hpp"

#include <chrono>
#include <cmath>
#include <map>

#include "orchestrator/experiment/resume_check.hpp"
#include "orchestrator/report/statistics.hpp"

namespace topolab::experiment {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

struct CellState {
  std::int64_t id = 0;
  std::set<std::pair<int, int>> done;  // (benchmark, repetition) already stored
  std::string error;
  int failed_runs = 0;
};

class ExperimentRun {
 public:
  ExperimentRun(const Experiment& e, Backend& b, store::ResultStore& s, Progress& p)
      : e_(e), backend_(b), store_(s), progress_(p) {}

  Result<RunSummary> run() {
    auto t0 = Clock::now();
    cells_ = expand_cells(e_);
    configs_ = group_by_configuration(e_, cells_);
    TL_TRY(backend_.prepare(e_, configs_));
    for (const auto& config : configs_) layouts_[config.key] = backend_.layout_identity(config);
    // Before anything is written: results measured under another definition are never reused.
    auto stored = store_.run_identities(e_.name);
    if (!stored) return stored.error();
    TL_TRY(check_resume(e_, cells_, layouts_, *stored, store_.path().string()));
    nlohmann::json spec = experiment_to_json(e_);
    auto exp = store_.begin_experiment(e_.name, spec, backend_.host_topology(), backend_.versions(),
                                       backend_.context());
    if (!exp) return exp.error();
    exp_id_ = *exp;
    TL_TRY(load_cells());
    summary_.cells = static_cast<int>(cells_.size());
    int runs_todo = 0, cells_already = 0;
    for (const auto& c : cells_) {
      int missing = missing_runs(c.index);
      runs_todo += missing;
      cells_already += missing == 0 ? 1 : 0;
    }
    progress_.begin(summary_.cells, cells_already, runs_todo);
    for (const auto& config : configs_) TL_TRY(run_configuration(config));
    progress_.end();
    summary_.wall_ms = ms_since(t0);
    return summary_;
  }

 private:
  Result<void> load_cells() {
    TL_TRY(store_.begin_batch());
    auto loaded = load_cells_unbatched();
    if (!loaded) {
      store_.rollback_batch();
      return loaded;
    }
    return store_.commit_batch();
  }

  Result<void> load_cells_unbatched() {
    for (const auto& c : cells_) {
      store::CellRecord rec{c.key,     c.config_key, c.factors_json(),
                            c.label(), c.index,      layouts_.at(c.config_key)};
      auto id = store_.upsert_cell(exp_id_, rec);
      if (!id) return id.error();
      auto done = store_.completed_runs(*id);
      if (!done) return done.error();
      state_.push_back({*id, *done, "", 0});
    }
    return {};
  }

  int missing_runs(int cell) const {
    int n = 0;
    for (int b = 0; b < static_cast<int>(e_.benchmarks.size()); ++b)
      for (int r = 1; r <= e_.repetitions; ++r) n += state_[cell].done.count({b, r}) ? 0 : 1;
    return n;
  }

  std::vector<RunSpec> pending_runs(const Configuration& config, std::uint64_t seed) {
    std::vector<RunSpec> out;
    for (const auto& r : configuration_runs(e_, config, 1, e_.repetitions, seed)) {
      if (state_[r.cell].done.count({r.benchmark, r.repetition}))
        ++summary_.runs_skipped;
      else
        out.push_back(r);
    }
    return out;
  }

  Result<void> fail_configuration(const Configuration& config, const std::string& error) {
    for (int c : config.cells) {
      TL_TRY(store_.add_failure(state_[c].id, 0, -1, -1, error));
      TL_TRY(store_.set_cell_status(state_[c].id, "failed", error, nullptr, 0));
      ++summary_.cells_failed;
      progress_.cell_done(cells_[c].label(), "failed: " + error);
    }
    return {};
  }

  Result<void> run_configuration(const Configuration& config) {
    const std::uint64_t seed = configuration_seed(e_.seed, config.key);
    auto runs = pending_runs(config, seed);
    if (runs.empty() && !needs_adaptive(config)) {
      for (int c : config.cells) ++summary_.cells_done, (void)c;
      return {};
    }
    progress_.config_start(config.label());
    auto t0 = Clock::now();
    auto target = backend_.start(e_, config);
    if (!target) return fail_configuration(config, "start: " + target.error().message);
    ++summary_.boots;
    Target& t = **target;
    const nlohmann::json mismatches = t.mismatches();
    const bool mismatch = mismatches.is_array() && !mismatches.empty();
    progress_.boot_done(config.label(), ms_since(t0), mismatch);
    store::BootRecord boot{exp_id_,    config.key,  seed,         t.intended(), t.seen(),
                           mismatches, t.timings(), t.versions(), t.context()};
    auto boot_id = store_.add_boot(boot);
    if (!boot_id) return boot_id.error();
    for (int c : config.cells)
      TL_TRY(store_.set_cell_status(state_[c].id, "running", "", mismatches, *boot_id));

    bool alive = true;
    for (const auto& r : runs) TL_TRY(execute(t, r, *boot_id, alive));
    TL_TRY(adaptive_runs(t, config, *boot_id, alive));
    if (alive) {
      auto down = t.shutdown();
      if (!down) progress_.message("shutdown " + config.label() + ": " + down.error().message);
    } else {
      // An agent that stopped answering will not ack a shutdown either: destroy at once
      // instead of waiting out the shutdown timeouts.
      progress_.message("stopping " + config.label() + ": the agent stopped answering");
    }
    target->reset();  // destroys the domain / agent on every path

    for (int c : config.cells) {
      bool complete = missing_runs(c) == 0;
      std::string status = complete ? "done" : "failed";
      std::string error = complete ? "" : state_[c].error;
      if (!complete && state_[c].failed_runs > 1)
        error += " (" + std::to_string(state_[c].failed_runs - 1) + " later run(s) failed too)";
      TL_TRY(store_.set_cell_status(state_[c].id, status, error, mismatches, *boot_id));
      if (complete)
        ++summary_.cells_done;
      else
        ++summary_.cells_failed;
      if (mismatch) ++summary_.cells_mismatch;
      progress_.cell_done(cells_[c].label(), status + (mismatch ? " (topology mismatch)" : "") +
                                                 (error.empty() ? "" : ": " + error));
    }
    return {};
  }

  // One benchmark run; a failure is recorded and, if the target stopped answering, every
  // later run of this boot fails fast instead of waiting for its timeout.
  Result<void> execute(Target& t, const RunSpec& r, std::int64_t boot_id, bool& alive) {
    const Cell& cell = cells_[r.cell];
    const auto& bench = e_.benchmarks[r.benchmark];
    CellState& st = state_[r.cell];
    progress_.run_start(cell.label(), bench.name, r.repetition);
    Result<protocol::BenchmarkResult> result =
        make_error("target stopped answering earlier in this boot");
    auto t0 = Clock::now();
    double ms = 0;
    if (alive) {
      result = t.run(bench.name, benchmark_params(e_, cell, r.benchmark),
                     std::chrono::seconds(e_.timeout_s));
      ms = ms_since(t0);
    }
    if (!result) {
      ++summary_.runs_failed;
      ++st.failed_runs;
      // The first failure is the cause; later ones of the boot only say it stopped answering.
      if (st.error.empty())
        st.error = bench.name + " #" + std::to_string(r.repetition) + ": " + result.error().message;
      TL_TRY(store_.add_failure(st.id, boot_id, r.benchmark, r.repetition, result.error().message));
      progress_.run_failed(cell.label(), bench.name, r.repetition, result.error().message);
      if (alive && !t.ping()) alive = false;
      return {};
    }
    store::RunRecord rec{st.id,
                         boot_id,
                         r.benchmark,
                         bench.name,
                         r.repetition,
                         benchmark_params(e_, cell, r.benchmark),
                         protocol::result_to_json(*result),
                         ms};
    TL_TRY(store_.add_run(rec));
    st.done.insert({r.benchmark, r.repetition});
    ++summary_.runs_executed;
    summary_.benchmark_ms += ms;
    progress_.run_done(cell.label(), bench.name, r.repetition, protocol::result_value(*result),
                       result->unit, ms);
    return {};
  }

  // Repetition values of one cell x benchmark, from the store (earlier runs included).
  std::vector<double> values(int cell, int bench) {
    std::vector<double> out;
    auto runs = store_.runs(state_[cell].id);
    if (!runs) return out;
    for (const auto& r : *runs)
      if (r.benchmark_index == bench && std::isfinite(r.value)) out.push_back(r.value);
    return out;
  }

  int next_rep(int cell, int bench) const {
    int rep = 0;
    for (const auto& [b, r] : state_[cell].done)
      if (b == bench) rep = std::max(rep, r);
    return rep + 1;
  }

  bool wants_more(int cell, int bench) {
    if (!e_.adaptive) return false;
    auto v = values(cell, bench);
    if (static_cast<int>(v.size()) < e_.repetitions) return false;  // base runs failed
    return static_cast<int>(v.size()) < e_.adaptive->max_repetitions &&
           report::cv(v) > e_.adaptive->cv_threshold;
  }

  bool needs_adaptive(const Configuration& config) {
    for (int c : config.cells)
      for (int b = 0; b < static_cast<int>(e_.benchmarks.size()); ++b)
        if (wants_more(c, b)) return true;
    return false;
  }

  // Phoronix-style: while a cell x benchmark's CV exceeds the threshold, add one repetition,
  // up to max_repetitions.
  Result<void> adaptive_runs(Target& t, const Configuration& config, std::int64_t boot_id,
                             bool& alive) {
    if (!e_.adaptive) return {};
    for (int c : config.cells)
      for (int b = 0; b < static_cast<int>(e_.benchmarks.size()); ++b)
        while (alive && wants_more(c, b)) {
          int before = summary_.runs_failed;
          TL_TRY(execute(t, {c, b, next_rep(c, b)}, boot_id, alive));
          ++summary_.runs_adaptive;
          if (summary_.runs_failed != before) break;
        }
    return {};
  }

  const Experiment& e_;
  Backend& backend_;
  store::ResultStore& store_;
  Progress& progress_;
  std::int64_t exp_id_ = 0;
  std::vector<Cell> cells_;
  std::vector<Configuration> configs_;
  std::map<std::string, nlohmann::json> layouts_;  // configuration key -> layout identity
  std::vector<CellState> state_;
  RunSummary summary_;
};

}  // namespace

nlohmann::json RunSummary::to_json() const {
  return {{"cells", cells},
          {"cells_done", cells_done},
          {"cells_failed", cells_failed},
          {"cells_mismatch", cells_mismatch},
          {"boots", boots},
          {"runs_executed", runs_executed},
          {"runs_skipped", runs_skipped},
          {"runs_failed", runs_failed},
          {"runs_adaptive", runs_adaptive},
          {"wall_ms", wall_ms},
          {"benchmark_ms", benchmark_ms},
          {"wall_over_benchmark",
           benchmark_ms > 0 ? nlohmann::json(wall_ms / benchmark_ms) : nlohmann::json()}};
}

Result<RunSummary> run_experiment(const Experiment& e, Backend& backend, store::ResultStore& store,
                                  Progress& progress) {
  return ExperimentRun(e, backend, store, progress).run();
}

}  // namespace topolab::experiment
