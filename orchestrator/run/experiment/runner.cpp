#include "orchestrator/run/experiment/runner.hpp"

#include <chrono>
#include <exception>
#include <memory>
#include <thread>

#include "orchestrator/run/experiment/host_run.hpp"
#include "orchestrator/run/experiment/resume_check.hpp"

namespace topolab::experiment {
namespace {

using detail::Design;
using detail::HostRun;
using detail::SharedStore;
using Clock = std::chrono::steady_clock;

// Every host is prepared (topology read, configurations planned, stale domains removed) before
// anything is written: an unreachable host or a bad URI refuses the run with nothing recorded.
Result<void> prepare_hosts(Design& d, const std::vector<HostSlot>& slots) {
  for (const auto& slot : slots) {
    auto ok = slot.backend->prepare(d.e, d.configs);
    if (!ok) return slots.size() > 1 ? ok.error().context("host " + slot.host) : ok.error();
  }
  // The resolved layout does not depend on the host: the first host's is every host's.
  for (const auto& config : d.configs)
    d.layouts[config.key] = slots.front().backend->layout_identity(config);
  // One host: what the planner refuses is a design error, refused before the first boot as it
  // always was ("an experiment level that cannot boot"). Several hosts: the host is a factor and
  // a refusal is that host's result (does-not-fit); only a design that fits nowhere is refused.
  if (slots.size() == 1) {
    for (const auto& config : d.configs)
      if (auto why = slots.front().backend->does_not_fit(config); !why.empty())
        return make_error(ErrorKind::does_not_fit,
                          d.e.source_file.string() + ": " + config.label() + ": " + why);
    return {};
  }
  for (const auto& config : d.configs)
    for (const auto& slot : slots)
      if (slot.backend->does_not_fit(config).empty()) return {};
  const Configuration& c = d.configs.front();
  return make_error(ErrorKind::does_not_fit, d.e.source_file.string() + ": " + c.label() +
                                                 ": no configuration fits any host; on " +
                                                 slots.front().host + ": " +
                                                 slots.front().backend->does_not_fit(c));
}

// The experiment row: the first host's topology and versions as before; with several hosts
// every host's topology and versions under context.hosts (read through each connection).
nlohmann::json experiment_context(const std::vector<HostSlot>& slots) {
  nlohmann::json context = slots.front().backend->context();
  if (slots.size() < 2) return context;
  if (!context.is_object()) context = nlohmann::json::object();
  context["hosts"] = nlohmann::json::array();
  for (const auto& slot : slots)
    context["hosts"].push_back({{"host", slot.host},
                                {"host_topology", slot.backend->host_topology()},
                                {"versions", slot.backend->versions()},
                                {"context", slot.backend->context()}});
  context["connect_uri"] = nullptr;  // no single URI: the cells name theirs
  return context;
}

// One thread per host; a single host runs on the calling thread, as before issue 16.
std::vector<Result<void>> run_workers(std::vector<std::unique_ptr<HostRun>>& runs) {
  std::vector<Result<void>> results(runs.size());
  if (runs.size() == 1) {
    results[0] = runs[0]->run();
    return results;
  }
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < runs.size(); ++i)
    threads.emplace_back([&, i] {
      // Nothing may escape a worker thread (std::terminate): an exception is this host's error.
      try {
        results[i] = runs[i]->run();
      } catch (const std::exception& ex) {
        results[i] = make_error(ErrorKind::internal, std::string("internal error: ") + ex.what());
      }
    });
  for (auto& t : threads) t.join();
  return results;
}

std::vector<int> cells_of(const std::vector<Configuration>& configs) {
  std::vector<int> out;
  for (const auto& c : configs) out.insert(out.end(), c.cells.begin(), c.cells.end());
  return out;
}

void add(RunSummary& s, const HostSummary& h) {
  s += h;
  s.hosts.push_back(h);
}

}  // namespace

RunCounts& RunCounts::operator+=(const RunCounts& o) {
  cells += o.cells;
  cells_done += o.cells_done;
  cells_failed += o.cells_failed;
  cells_mismatch += o.cells_mismatch;
  cells_does_not_fit += o.cells_does_not_fit;
  boots += o.boots;
  runs_executed += o.runs_executed;
  runs_skipped += o.runs_skipped;
  runs_failed += o.runs_failed;
  runs_adaptive += o.runs_adaptive;
  hang_reboots += o.hang_reboots;
  benchmark_ms += o.benchmark_ms;
  return *this;
}

nlohmann::json RunCounts::to_json() const {
  return {{"cells", cells},
          {"cells_done", cells_done},
          {"cells_failed", cells_failed},
          {"cells_mismatch", cells_mismatch},
          {"cells_does_not_fit", cells_does_not_fit},
          {"boots", boots},
          {"runs_executed", runs_executed},
          {"runs_skipped", runs_skipped},
          {"runs_failed", runs_failed},
          {"runs_adaptive", runs_adaptive},
          {"hang_reboots", hang_reboots},
          {"benchmark_ms", benchmark_ms}};
}

nlohmann::json HostSummary::to_json() const {
  auto j = RunCounts::to_json();
  j["host"] = host;
  j["unreachable"] = unreachable.empty() ? nlohmann::json() : nlohmann::json(unreachable);
  return j;
}

nlohmann::json RunSummary::to_json() const {
  auto j = RunCounts::to_json();
  j["wall_ms"] = wall_ms;
  j["wall_over_benchmark"] =
      benchmark_ms > 0 ? nlohmann::json(wall_ms / benchmark_ms) : nlohmann::json();
  nlohmann::json per_host = nlohmann::json::array();
  for (const auto& h : hosts) per_host.push_back(h.to_json());
  j["hosts"] = per_host;
  return j;
}

Result<RunSummary> run_experiment(const Experiment& e, const std::vector<HostSlot>& slots,
                                  store::ResultStore& store, Progress& progress,
                                  const Shard& shard) {
  if (slots.empty()) return make_error(ErrorKind::internal, "run_experiment: no host");
  const auto t0 = Clock::now();
  Design d{e, expand_cells(e), {}, {}};
  d.configs = group_by_configuration(e, d.cells);
  // Refused before any host is contacted; every configuration is still prepared, since resume
  // checks the layouts of the whole experiment.
  TL_ASSIGN(auto shard_configs, shard_configurations(e, d.configs, shard));
  TL_TRY(prepare_hosts(d, slots));
  // Before anything is written: results measured under another definition are never reused.
  auto stored = store.run_identities(e.name);
  if (!stored) return stored.error();
  TL_TRY(check_resume(e, d.cells, d.layouts, *stored, store.path().string()));
  d.configs = std::move(shard_configs);  // from here on only the shard's configurations run
  const std::vector<int> shard_cells = cells_of(d.configs);
  const Backend& first = *slots.front().backend;
  auto exp = store.begin_experiment(e.name, experiment_to_json(e), first.host_topology(),
                                    first.versions(), experiment_context(slots));
  if (!exp) return exp.error();

  std::vector<std::string> names;
  for (const auto& slot : slots) names.push_back(slot.host);
  progress.set_lanes(names);
  SharedStore shared(store);
  std::vector<std::unique_ptr<HostRun>> runs;
  for (std::size_t i = 0; i < slots.size(); ++i)
    runs.push_back(
        std::make_unique<HostRun>(d, slots[i], shared, progress.lane(static_cast<int>(i))));
  // One transaction for every host's cells: a commit per cell made loading 100 000 cells take
  // minutes before the first run (redteam).
  TL_TRY(store.begin_batch());
  for (auto& r : runs) {
    auto loaded = r->load_cells(store, *exp);
    if (!loaded) {
      store.rollback_batch();
      return loaded.error();
    }
  }
  TL_TRY(store.commit_batch());
  int cells_total = 0, runs_todo = 0, cells_already = 0;
  for (auto& r : runs)
    for (int c : shard_cells) {
      ++cells_total;
      if (!r->fits(c)) continue;
      const int missing = r->missing_runs(c);
      runs_todo += missing;
      cells_already += missing == 0 ? 1 : 0;
    }
  progress.begin(cells_total, cells_already, runs_todo);
  auto results = run_workers(runs);
  progress.end();
  RunSummary summary;
  for (auto& r : runs) {
    HostSummary h = r->summary();
    h.cells = static_cast<int>(shard_cells.size());
    add(summary, h);
  }
  for (auto& result : results)
    if (!result) return result.error();
  summary.wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  return summary;
}

Result<RunSummary> run_experiment(const Experiment& e, Backend& backend, store::ResultStore& store,
                                  Progress& progress) {
  return run_experiment(e, {HostSlot{backend.host(), &backend}}, store, progress);
}

}  // namespace topolab::experiment
