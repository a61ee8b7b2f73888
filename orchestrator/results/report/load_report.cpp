// load_report: one experiment of a store read into ReportData, every stored value read by type
// (a store may come from an older or hostile build).
#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "common/cpu_list.hpp"
#include "orchestrator/base/statistics/adaptive.hpp"
#include "orchestrator/base/statistics/descriptive.hpp"
#include "orchestrator/results/report/report_data.hpp"
#include "orchestrator/results/store/result_store.hpp"
#include "protocol/benchmark_result.hpp"

namespace topolab::report {
namespace {

// The distinct hosts of the cells when there are several (issue 16); empty with one, so a
// single-host store reports exactly as before.
std::vector<std::string> store_hosts(const std::vector<store::StoredCell>& cells) {
  std::vector<std::string> hosts;
  std::set<std::string> seen;  // a crafted store may give every cell its own host: no n^2
  for (const auto& c : cells)
    if (seen.insert(c.cell.host).second) hosts.push_back(c.cell.host);
  if (hosts.size() < 2) hosts.clear();
  return hosts;
}

// Element-wise median of the matrices of several repetitions.
LatencyMatrix combine(const std::vector<LatencyMatrix>& ms) {
  LatencyMatrix out = ms.front();
  for (std::size_t i = 0; i < out.ns.size(); ++i)
    for (std::size_t j = 0; j < out.ns.size(); ++j) {
      std::vector<double> v;
      for (const auto& m : ms)
        if (m.ns.size() == out.ns.size() && std::isfinite(m.ns[i][j])) v.push_back(m.ns[i][j]);
      out.ns[i][j] = v.empty() ? statistics::kNaN : statistics::median(v);
    }
  return out;
}

// The stored experiment spec is topolab's own output, but a store may come from an older or
// hostile build: read it by type, never by assumption.
nlohmann::json stored_baseline(const nlohmann::json& spec) {
  if (!spec.is_object() || !spec.contains("baseline") || !spec["baseline"].is_object())
    return nlohmann::json::object();
  return spec["baseline"];
}

constexpr std::size_t kMaxStoredBenchmarks = 1024;

std::vector<std::string> stored_benchmark_names(const nlohmann::json& spec) {
  std::vector<std::string> names;
  if (!spec.is_object() || !spec.contains("benchmarks") || !spec["benchmarks"].is_array())
    return names;
  for (const auto& b : spec["benchmarks"]) {
    // rows = cells x benchmarks: a crafted spec must not multiply them without bound.
    if (names.size() >= kMaxStoredBenchmarks) break;
    const bool named = b.is_object() && b.contains("name") && b["name"].is_string();
    names.push_back(named ? b["name"].get<std::string>() : "");
  }
  return names;
}

// What an unreadable spec takes away from the report, in words (empty: nothing).
std::vector<std::string> spec_warnings(const nlohmann::json& spec) {
  if (!spec.is_object())
    return {
        "stored experiment spec is unreadable: no baseline, so no penalties; benchmark "
        "names come from the runs"};
  std::vector<std::string> out;
  if (spec.contains("baseline") && !spec["baseline"].is_object())
    out.push_back("stored baseline is not a table: no penalties");
  if (!spec.contains("benchmarks") || !spec["benchmarks"].is_array())
    out.push_back("stored benchmark list is unreadable: benchmark names come from the runs");
  return out;
}

// Steal of one run: the agent's /proc/stat steal ticks (USER_HZ = 100) before and after it, over
// its wall time times the CPUs it ran on (the counter sums every CPU). A run without the counter
// (Windows, an older agent) adds nothing.
void add_steal(statistics::NoiseInput& in, const nlohmann::json& env, double duration_ms) {
  if (!env.is_object() || !(duration_ms > 0)) return;
  const auto before = env.value("steal_before", nlohmann::json());
  const auto after = env.value("steal_after", nlohmann::json());
  if (!before.is_number_unsigned() || !after.is_number_unsigned()) return;
  if (after.get<std::uint64_t>() < before.get<std::uint64_t>()) return;
  std::size_t cpus = 1;
  const auto list = env.value("cpus", nlohmann::json());
  if (list.is_string() && cpu_list_text_in_range(list.get<std::string>()))
    if (auto l = topolab::CpuList::parse(list.get<std::string>()); l && !l->ids().empty())
      cpus = l->ids().size();
  in.steal_known = true;
  in.steal_seconds +=
      static_cast<double>(after.get<std::uint64_t>() - before.get<std::uint64_t>()) / 100.0;
  in.run_seconds += duration_ms / 1000.0 * static_cast<double>(cpus);
}

double positive_number(const nlohmann::json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return 0;
  const double v = j[key].get<double>();
  return std::isfinite(v) && v > 0 ? v : 0;
}

// The stored [adaptive] table, read by type (a hostile store gives no target, never a throw).
struct StoredAdaptive {
  int max_repetitions = 0;  // 0: not adaptive
  statistics::AdaptiveTarget target;
};

StoredAdaptive stored_adaptive(const nlohmann::json& spec) {
  StoredAdaptive a;
  if (!spec.is_object() || !spec.contains("adaptive")) return a;
  const auto& j = spec["adaptive"];
  a.max_repetitions = static_cast<int>(std::min(positive_number(j, "max_repetitions"), 1e6));
  if (double v = positive_number(j, "cv_threshold"); v > 0) a.target.cv_threshold = v;
  if (double v = positive_number(j, "ci_halfwidth_pct"); v > 0) a.target.ci_halfwidth_pct = v;
  return a;
}

// Noise flags and the adaptive cap, once statistics and context are known.
void assess_rows(ReportData& data, const nlohmann::json& spec) {
  const StoredAdaptive adaptive = stored_adaptive(spec);
  const bool emulated = data.context && data.context->experiment.emulated;
  for (auto& r : data.rows) {
    if (r.values.empty()) continue;
    r.noise_input.cv = r.cv;
    r.noise_input.cv_threshold = adaptive.target.cv_threshold.value_or(0.05);
    r.noise_input.emulated = emulated;
    r.noise = statistics::noise_reasons(r.noise_input);
    r.stopped_at_cap = adaptive.max_repetitions > 0 &&
                       static_cast<int>(r.values.size()) >= adaptive.max_repetitions &&
                       statistics::needs_more_repetitions(r.values, adaptive.target);
  }
}

// The experiment `name` names, or the store's only one when no name is given.
Result<const store::StoredExperiment*> choose_experiment(
    const store::ResultStore& store, const std::vector<store::StoredExperiment>& exps,
    const std::string& name) {
  const std::string where = "store " + store.path().string();
  if (exps.empty()) return make_error(ErrorKind::not_found, where + ": no experiments");
  const store::StoredExperiment* exp = nullptr;
  std::string names;
  for (const auto& e : exps) {
    names += (names.empty() ? "" : ", ") + e.name;
    if (e.name == name) exp = &e;
  }
  if (name.empty()) {
    if (exps.size() > 1)
      return make_error(
          ErrorKind::input,
          where + " holds several experiments; choose one with --experiment: " + names);
    return &exps.front();
  }
  if (!exp)
    return make_error(ErrorKind::not_found,
                      where + ": no experiment '" + name + "'; it holds: " + names);
  return exp;
}

// "expose=flat threads=4": the stored baseline levels in the header of every format.
std::string baseline_text(const nlohmann::json& baseline) {
  std::string out;
  for (const auto& [k, v] : baseline.items())
    out += (out.empty() ? "" : " ") + k + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
  return out;
}

// One line, however many cells have unreadable factors: a warning must not flood.
std::optional<std::string> unreadable_factors_warning(const std::vector<store::StoredCell>& cells,
                                                      const nlohmann::json& baseline) {
  if (baseline.empty()) return std::nullopt;
  std::size_t count = 0;
  std::string first;
  for (const auto& c : cells)
    if (!c.cell.factors.is_object() && count++ == 0) first = c.cell.label;
  if (count == 0) return std::nullopt;
  return std::to_string(count) +
         " cell(s) have unreadable stored factors, so no baseline and no penalty for them "
         "(first: " +
         first + ")";
}

// What the stored experiment says about every cell: its benchmarks, in their order.
struct StoredBenchmarks {
  std::vector<std::string> names;
  std::size_t count = 1;  // rows per cell: the names, at least one
};

// A run no row would pick up (its index names no benchmark) is said, not dropped.
void note_unmatched_runs(ReportData& data, const store::StoredCell& c,
                         const std::vector<store::StoredRun>& runs,
                         const StoredBenchmarks& benches) {
  for (const auto& r : runs)
    if (r.benchmark_index < 0 || static_cast<std::size_t>(r.benchmark_index) >= benches.count)
      data.invalid_runs.push_back({r.id, c.cell.label, r.benchmark,
                                   "benchmark index " + std::to_string(r.benchmark_index) +
                                       " names no benchmark of the stored experiment (it has " +
                                       std::to_string(benches.names.size()) + ")"});
}

// The cell's own error, else the last failure recorded for it.
std::string cell_error(store::ResultStore& store, const store::StoredCell& c) {
  if (!c.error.empty()) return c.error;
  auto f = store.failures(c.id);
  return f && !f->empty() ? f->back() : "";
}

// The row of benchmark `b` of a cell before its runs: names, factors, status.
ReportRow empty_row(const ReportData& data, const store::StoredCell& c, std::size_t b,
                    const StoredBenchmarks& benches, const std::string& error) {
  ReportRow row;
  row.cell = c.cell.label;
  // Unreadable stored factors read as null (a discarded value would print as "<discarded>").
  row.factors = c.cell.factors.is_discarded() ? nlohmann::json() : c.cell.factors;
  if (!data.hosts.empty()) {
    row.host = c.cell.host;
    // The host is a factor of a store of several hosts: in the CSV factor columns and the
    // JSON factors, and part of what a baseline must share.
    if (row.factors.is_object()) row.factors["host"] = row.host;
  }
  row.benchmark_index = static_cast<int>(b);
  row.benchmark = b < benches.names.size() ? benches.names[b] : "";
  row.status = c.status;
  row.mismatch = c.mismatches.is_array() && !c.mismatches.empty();
  row.error = error;
  return row;
}

// One stored run into its row (value, steal, telemetry) and, for c2c, the cell's matrices. The
// same typed reader as at receipt: a bad stored row is listed, never thrown on.
void add_run(ReportData& data, ReportRow& row, const store::StoredRun& r,
             const std::string& cell_label, std::vector<LatencyMatrix>& matrices) {
  if (row.benchmark.empty()) row.benchmark = r.benchmark;
  auto valid = protocol::validate_result(r.result);
  if (!valid) {
    data.invalid_runs.push_back({r.id, cell_label, r.benchmark, valid.error().message});
    return;
  }
  row.unit = valid->unit;
  row.lower_is_better = valid->lower_is_better;
  if (double v = protocol::result_value(*valid); std::isfinite(v)) {
    row.values.push_back(v);
    add_steal(row.noise_input, valid->environment, r.duration_ms);
  }
  if (valid->telemetry) row.telemetry.push_back(*valid->telemetry);
  if (valid->host_telemetry) row.host_telemetry.push_back(*valid->host_telemetry);
  if (auto m = latency_matrix_from_result(protocol::result_to_json(*valid))) {
    if (valid->environment.contains("placement")) m->placement = valid->environment["placement"];
    matrices.push_back(*m);
  }
}

// The cell's c2c matrix (median of its runs) with the topology it is drawn on.
LatencyMatrix cell_matrix(store::ResultStore& store, const store::StoredExperiment& exp,
                          const store::StoredCell& c, const ReportData& data,
                          const std::vector<LatencyMatrix>& matrices) {
  LatencyMatrix m = combine(matrices);
  m.cell = row_ref(c.cell.label, data.hosts.empty() ? "" : c.cell.host);
  if (data.hosts.empty()) m.host_topology = exp.host_topology;
  if (experiment_backend(exp) == "host") {  // the benchmark's CPUs are the host's
    m.topology = exp.host_topology;
    m.cpus_are_host_cpus = true;
  } else if (c.boot_id) {
    auto boot = store.boot(c.boot_id);
    if (boot) m.topology = boot->boot.seen;  // absent or unreadable: no topology shown
  }
  return m;
}

// A cell's rows, one per benchmark, and its matrix.
Result<void> add_cell(ReportData& data, store::ResultStore& store,
                      const store::StoredExperiment& exp, const store::StoredCell& c,
                      const StoredBenchmarks& benches) {
  auto runs = store.runs(c.id);
  if (!runs) return runs.error();
  const std::string error = cell_error(store, c);
  note_unmatched_runs(data, c, *runs, benches);
  std::vector<LatencyMatrix> matrices;
  for (std::size_t b = 0; b < benches.count; ++b) {
    ReportRow row = empty_row(data, c, b, benches, error);
    for (const auto& r : *runs)
      if (r.benchmark_index == static_cast<int>(b)) add_run(data, row, r, c.cell.label, matrices);
    data.rows.push_back(std::move(row));
  }
  if (!matrices.empty()) data.matrices.push_back(cell_matrix(store, exp, c, data, matrices));
  return {};
}

}  // namespace

Result<ReportData> load_report(store::ResultStore& store, const std::string& name,
                               const VerdictOptions& options) {
  auto exps = store.experiments();
  if (!exps) return exps.error();
  auto chosen = choose_experiment(store, *exps, name);
  if (!chosen) return chosen.error();
  const store::StoredExperiment& exp = **chosen;
  ReportData data;
  data.experiment = exp.name;
  const nlohmann::json baseline = stored_baseline(exp.spec);
  data.baseline = baseline_text(baseline);
  StoredBenchmarks benches;
  benches.names = stored_benchmark_names(exp.spec);
  benches.count = std::max<std::size_t>(benches.names.size(), 1);
  data.warnings = spec_warnings(exp.spec);
  auto cells = store.cells(exp.id);
  if (!cells) return cells.error();
  data.hosts = store_hosts(*cells);
  for (const auto& c : *cells)
    if (auto added = add_cell(data, store, exp, c, benches); !added) return added.error();
  if (auto w = unreadable_factors_warning(*cells, baseline)) data.warnings.push_back(*w);
  compute_statistics(data, baseline, options);
  data.context = load_context(store, exp, *cells, data.hosts);
  assess_rows(data, exp.spec);
  data.pictures = load_pictures(store, exp, *cells);
  return data;
}

}  // namespace topolab::report
