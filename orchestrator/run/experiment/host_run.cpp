#include "orchestrator/run/experiment/host_run.hpp"

#include <algorithm>
#include <chrono>

#include "common/ci_retry_log.hpp"
#include "common/utc_time.hpp"
#include "orchestrator/run/experiment/hang_bound.hpp"
#include "orchestrator/run/experiment/machine_context.hpp"

namespace topolab::experiment::detail {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// The target's context with the machine this process runs on (a Slurm node, issue 30).
nlohmann::json boot_context(const Target& t) {
  nlohmann::json ctx = t.context();
  if (!ctx.is_object()) ctx = nlohmann::json::object();
  ctx["machine"] = this_machine_context();
  return ctx;
}

}  // namespace

Result<void> HostRun::load_cells(store::ResultStore& s, std::int64_t experiment_id) {
  exp_id_ = experiment_id;
  for (const auto& config : d_.configs)
    if (auto why = backend_.does_not_fit(config); !why.empty()) unfit_[config.key] = why;
  for (const auto& c : d_.cells) {
    store::CellRecord rec{c.key,        c.config_key, c.factors_json(),
                          c.label(),    c.index,      d_.layouts.at(c.config_key),
                          summary_.host};
    auto id = s.upsert_cell(experiment_id, rec);
    if (!id) return id.error();
    auto done = s.completed_runs(*id);
    if (!done) return done.error();
    state_.push_back({*id, *done, "", 0});
    // Planned again on every run (the planner is deterministic): stays does-not-fit, never
    // counted as work left to do or as a failure.
    if (auto it = unfit_.find(c.config_key); it != unfit_.end())
      TL_TRY(s.set_cell_status(*id, "does-not-fit", it->second, nullptr, 0));
  }
  return {};
}

bool HostRun::fits(int cell) const { return !unfit_.count(d_.cells[cell].config_key); }

int HostRun::missing_runs(int cell) const {
  int n = 0;
  for (int b = 0; b < static_cast<int>(d_.e.benchmarks.size()); ++b)
    for (int r = 1; r <= d_.e.repetitions; ++r) n += state_[cell].done.count({b, r}) ? 0 : 1;
  return n;
}

std::vector<RunSpec> HostRun::pending_runs(const Configuration& config, std::uint64_t seed,
                                           int* stored) const {
  std::vector<RunSpec> out;
  for (const auto& r : configuration_runs(d_.e, config, 1, d_.e.repetitions, seed)) {
    if (state_[r.cell].done.count({r.benchmark, r.repetition})) {
      if (stored) ++*stored;
    } else {
      out.push_back(r);
    }
  }
  return out;
}

Result<void> HostRun::fail_configuration(const Configuration& config, const std::string& error) {
  for (int c : config.cells) {
    TL_TRY(store_.with([&](store::ResultStore& s) -> Result<void> {
      TL_TRY(s.add_failure(state_[c].id, 0, -1, -1, error));
      return s.set_cell_status(state_[c].id, "failed", error, nullptr, 0);
    }));
    ++summary_.cells_failed;
    lane_.cell_done(d_.cells[c].label(), "failed: " + error);
  }
  return {};
}

Result<void> HostRun::settle_complete_cells(const Configuration& config) {
  return store_.with([&](store::ResultStore& s) -> Result<void> {
    if (!stored_cells_) {
      auto cells = s.cells(exp_id_);
      if (!cells) return cells.error();
      stored_cells_.emplace();
      for (auto& c : *cells) stored_cells_->emplace(c.id, std::move(c));
    }
    for (int c : config.cells) {
      auto it = stored_cells_->find(state_[c].id);
      if (it == stored_cells_->end() || it->second.status == "done" || missing_runs(c) > 0)
        continue;
      TL_TRY(s.set_cell_status(it->first, "done", "", it->second.mismatches, it->second.boot_id));
    }
    return {};
  });
}

// After a failed start or a target that stopped answering: a host that no longer accepts a
// connection stops its worker (the other hosts carry on).
void HostRun::check_host() {
  if (auto ok = backend_.check_reachable(); !ok) {
    summary_.unreachable = ok.error().message;
    lane_.state("unreachable: " + ok.error().message);
  }
}

Result<void> HostRun::run() {
  for (const auto& config : d_.configs) {
    if (auto it = unfit_.find(config.key); it != unfit_.end()) {
      for (int c : config.cells) {
        ++summary_.cells_does_not_fit;
        lane_.cell_done(d_.cells[c].label(), "does-not-fit: " + it->second);
      }
      continue;
    }
    if (!summary_.unreachable.empty()) {
      bool missing = false;
      for (int c : config.cells) missing = missing || missing_runs(c) > 0;
      if (!missing) {
        summary_.cells_done += static_cast<int>(config.cells.size());
        continue;
      }
      TL_TRY(fail_configuration(config, "not run: host " + summary_.host + " became unreachable (" +
                                            summary_.unreachable + ")"));
      continue;
    }
    TL_TRY(run_configuration(config));
  }
  lane_.state(summary_.unreachable.empty() ? "done" : "FAILED: unreachable");
  return {};
}

Result<void> HostRun::run_configuration(const Configuration& config) {
  const std::uint64_t seed = configuration_seed(d_.e.seed, config.key);
  // Stored by an earlier run of the command: skipped (a reboot's own earlier runs are not).
  auto runs = pending_runs(config, seed, &summary_.runs_skipped);
  if (runs.empty() && !needs_adaptive(config)) {
    summary_.cells_done += static_cast<int>(config.cells.size());
    return settle_complete_cells(config);
  }
  TL_ASSIGN(BootOutcome out, boot_and_run(config, seed));
  if (!out.started) return {};
  if (reboot_after_hang(config, out)) {
    // The runs the hung guest answered are stored; only the missing ones run again.
    TL_ASSIGN(BootOutcome again, boot_and_run(config, seed));
    if (!again.started) return {};
    out = std::move(again);
  }
  TL_TRY(finish_cells(config, out.mismatches, out.boot_id));
  if (!out.alive) check_host();
  return {};
}

// A guest that stops answering in the middle of its runs is booted once more for the runs it
// left (issue 31's CI: under TCG on 2 host CPUs a booted guest occasionally stops answering,
// like the early hangs the boot watchdog retries). Once: a guest that hangs again fails its
// cells with the first cause. Not when the host itself is gone.
bool HostRun::reboot_after_hang(const Configuration& config, const BootOutcome& first) {
  if (first.alive || !first.hung) return false;
  int missing = 0;
  for (int c : config.cells) missing += missing_runs(c);
  if (missing == 0) return false;
  if (auto ok = backend_.check_reachable(); !ok) return false;
  ++summary_.hang_reboots;
  const std::string why = "the agent stopped answering with " + std::to_string(missing) +
                          " run(s) left: booting it again for those (once)";
  lane_.message("rebooting " + config.label() + ": " + why);
  note_retry_for_ci("run", "run " + d_.e.name + " " + config.label(), 1, why,
                    names_planted_fault(config.label()));
  return true;
}

Result<HostRun::BootOutcome> HostRun::boot_and_run(const Configuration& config,
                                                   std::uint64_t seed) {
  BootOutcome out;
  hung_in_boot_ = false;
  auto runs = pending_runs(config, seed);
  lane_.config_start(config.label());
  const std::string started = utc_now();  // the boot's interval starts before its define
  auto t0 = Clock::now();
  auto target = backend_.start(d_.e, config);
  if (!target) {
    TL_TRY(fail_configuration(config, "start: " + target.error().message));
    check_host();
    return out;
  }
  out.started = true;
  ++summary_.boots;
  Target& t = **target;
  out.mismatches = t.mismatches();
  const bool mismatch = out.mismatches.is_array() && !out.mismatches.empty();
  lane_.boot_done(config.label(), ms_since(t0), mismatch);
  store::BootRecord boot{exp_id_,         config.key,     seed,        t.intended(),
                         t.seen(),        out.mismatches, t.timings(), t.versions(),
                         boot_context(t), summary_.host,  started,     t.plan()};
  auto boot_id = store_.with([&](store::ResultStore& s) -> Result<std::int64_t> {
    auto id = s.add_boot(boot);
    if (!id) return id.error();
    for (int c : config.cells)
      TL_TRY(s.set_cell_status(state_[c].id, "running", "", out.mismatches, *id));
    return id;
  });
  if (!boot_id) return boot_id.error();
  out.boot_id = *boot_id;

  for (const auto& r : runs) TL_TRY(execute(t, r, *boot_id, out.alive));
  TL_TRY(adaptive_runs(t, config, *boot_id, out.alive));
  if (out.alive) {
    auto down = t.shutdown();
    if (!down) lane_.message("shutdown " + config.label() + ": " + down.error().message);
  } else {
    // An agent that stopped answering will not ack a shutdown either: destroy at once
    // instead of waiting out the shutdown timeouts.
    lane_.message("stopping " + config.label() + ": the agent stopped answering");
  }
  target->reset();  // destroys the domain / agent on every path
  TL_TRY(store_.with([&](store::ResultStore& s) { return s.finish_boot(*boot_id); }));
  out.hung = hung_in_boot_;
  return out;
}

Result<void> HostRun::finish_cells(const Configuration& config,
                                   const nlohmann::json& boot_mismatches, std::int64_t boot_id) {
  for (int c : config.cells) {
    nlohmann::json mismatches =
        boot_mismatches.is_array() ? boot_mismatches : nlohmann::json::array();
    for (const auto& m : state_[c].condition_mismatches) mismatches.push_back(m);
    const bool mismatch = !mismatches.empty();
    bool complete = missing_runs(c) == 0;
    std::string status = complete ? "done" : "failed";
    std::string error = complete ? "" : state_[c].error;
    if (!complete && state_[c].failed_runs > 1)
      error += " (" + std::to_string(state_[c].failed_runs - 1) + " later run(s) failed too)";
    TL_TRY(store_.with([&](store::ResultStore& s) {
      return s.set_cell_status(state_[c].id, status, error, mismatches, boot_id);
    }));
    if (complete)
      ++summary_.cells_done;
    else
      ++summary_.cells_failed;
    if (mismatch) ++summary_.cells_mismatch;
    const bool conditions = !state_[c].condition_mismatches.empty();
    lane_.cell_done(
        d_.cells[c].label(),
        status + (mismatch ? conditions ? " (os setting mismatch)" : " (topology mismatch)" : "") +
            (error.empty() ? "" : ": " + error));
  }
  return {};
}

Result<nlohmann::json> HostRun::apply_conditions(Target& t, int cell) {
  const auto wanted = os_settings(d_.e, d_.cells[cell]);
  if (wanted.empty()) return nlohmann::json();
  TL_ASSIGN_CTX(auto seen, t.configure(wanted), "configure");
  nlohmann::json out = nlohmann::json::object();
  std::string refused;
  for (const auto& [name, requested] : wanted) {
    const auto& state = seen.at(name);  // AgentClient::configure checked every name is answered
    if (!state.value) {
      refused += (refused.empty() ? "" : "; ") + name + ": " + state.error;
      continue;
    }
    out[name] = {{"requested", requested}, {"seen", *state.value}};
    const protocol::SettingRow* row = protocol::find_setting(name);
    if (row && protocol::setting_matches(*row, requested, *state.value)) continue;
    nlohmann::json m = {{"level", name}, {"intended", requested}, {"seen", *state.value}};
    auto& list = state_[cell].condition_mismatches;
    if (std::find(list.begin(), list.end(), m) == list.end()) list.push_back(m);
    lane_.message(d_.cells[cell].label() + ": " + name + " requested " + level_text(requested) +
                  ", the guest reads " + level_text(*state.value) + ": measured, flagged");
  }
  if (!refused.empty()) return make_error(ErrorKind::guest, "the agent refused " + refused);
  return out;
}

std::string HostRun::work_key(int cell, int bench) const {
  const Cell& c = d_.cells[cell];
  return c.config_key + "\n" + std::to_string(bench) + "\n" +
         benchmark_params(d_.e, c, bench).dump();
}

std::optional<double> HostRun::slowest_run(const std::string& work) const {
  auto it = slowest_ms_.find(work);
  if (it == slowest_ms_.end()) return std::nullopt;
  return it->second;
}

// One benchmark run; a failure is recorded and, if the target stopped answering, every
// later run of this boot fails fast instead of waiting for its timeout.
Result<void> HostRun::execute(Target& t, const RunSpec& r, std::int64_t boot_id, bool& alive) {
  lane_.run_start(d_.cells[r.cell].label(), d_.e.benchmarks[r.benchmark].name, r.repetition);
  RunAttempt a = attempt_run(t, r, alive);
  if (!a.result) return record_failed_run(t, r, boot_id, a.result.error(), a.waited_out, alive);
  return record_run(r, boot_id, *a.result, a.conditions, a.ms);
}

// The cell's os.* settings applied, then the run within its bound; nothing when the target
// stopped answering earlier in this boot.
HostRun::RunAttempt HostRun::attempt_run(Target& t, const RunSpec& r, bool alive) {
  RunAttempt a;
  auto t0 = Clock::now();
  if (!alive) return a;
  auto applied = apply_conditions(t, r.cell);
  if (!applied) {
    a.result = applied.error();
    // A configure that used its whole bound is a guest that stopped answering, like a run that
    // waited out its bound, and gets the same one reboot (a CI run: a TCG guest hung while
    // os.smt=off took a vCPU offline, and its cells failed without a second boot).
    a.waited_out = experiment::waited_out(ms_since(t0), kConfigureTimeout);
    return a;
  }
  a.conditions = *applied;
  const RunBound bound =
      run_bound(slowest_run(work_key(r.cell, r.benchmark)), std::chrono::seconds(d_.e.timeout_s));
  const auto run_t0 = Clock::now();
  a.result = t.run(d_.e.benchmarks[r.benchmark].name,
                   benchmark_params(d_.e, d_.cells[r.cell], r.benchmark), bound.wait);
  a.ms = ms_since(t0);
  a.waited_out = !a.result && experiment::waited_out(ms_since(run_t0), bound.wait);
  if (!a.result && bound.hang_bound)
    a.result =
        Error{a.result.error().message + " (after " + std::to_string(bound.wait.count() / 1000) +
                  " s: " + std::to_string(static_cast<int>(kSlowerThanHung)) +
                  " x the slowest earlier run of this work; timeout_s is " +
                  std::to_string(d_.e.timeout_s) + ")",
              a.result.error().kind};
  return a;
}

// A failed run is stored; the first failure of a cell is its cause. A target that no longer
// answers a ping ends the boot's runs (hung when the run waited out its bound).
Result<void> HostRun::record_failed_run(Target& t, const RunSpec& r, std::int64_t boot_id,
                                        const Error& error, bool waited_out, bool& alive) {
  const auto& bench = d_.e.benchmarks[r.benchmark];
  CellState& st = state_[r.cell];
  ++summary_.runs_failed;
  ++st.failed_runs;
  // The first failure is the cause; later ones of the boot only say it stopped answering.
  if (st.error.empty())
    st.error = bench.name + " #" + std::to_string(r.repetition) + ": " + error.message;
  TL_TRY(store_.with([&](store::ResultStore& s) {
    return s.add_failure(st.id, boot_id, r.benchmark, r.repetition, error.message);
  }));
  lane_.run_failed(d_.cells[r.cell].label(), bench.name, r.repetition, error.message);
  if (alive && !t.ping()) {
    alive = false;
    hung_in_boot_ = waited_out;
  }
  return {};
}

// A run's result stored with the settings it was measured under; it raises its work's
// slowest run (the next run's hang bound).
Result<void> HostRun::record_run(const RunSpec& r, std::int64_t boot_id,
                                 const protocol::BenchmarkResult& result,
                                 const nlohmann::json& conditions, double ms) {
  const Cell& cell = d_.cells[r.cell];
  const auto& bench = d_.e.benchmarks[r.benchmark];
  CellState& st = state_[r.cell];
  nlohmann::json result_json = protocol::result_to_json(result);
  // The settings this run was measured under, as requested and as read back (issue 25).
  if (!conditions.is_null()) result_json["environment"]["conditions"] = conditions;
  store::RunRecord rec{st.id,        boot_id,
                       r.benchmark,  bench.name,
                       r.repetition, benchmark_params(d_.e, cell, r.benchmark),
                       result_json,  ms};
  TL_TRY(store_.with([&](store::ResultStore& s) { return s.add_run(rec); }));
  st.done.insert({r.benchmark, r.repetition});
  double& slowest = slowest_ms_[work_key(r.cell, r.benchmark)];
  slowest = std::max(slowest, ms);
  ++summary_.runs_executed;
  summary_.benchmark_ms += ms;
  lane_.run_done(cell.label(), bench.name, r.repetition, protocol::result_value(result),
                 result.unit, ms);
  return {};
}

}  // namespace topolab::experiment::detail
