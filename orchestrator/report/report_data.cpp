#include "orchestrator/report/report_data.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>

#include "common/cpu_list.hpp"
#include "orchestrator/statistics/adaptive.hpp"
#include "orchestrator/statistics/descriptive.hpp"
#include "orchestrator/store/result_store.hpp"
#include "protocol/benchmark_result.hpp"

namespace topolab::report {
namespace {

using statistics::cv;
using statistics::max_of;
using statistics::mean;
using statistics::median;
using statistics::min_of;

using statistics::kNaN;

nlohmann::json baseline_factors(const nlohmann::json& factors, const nlohmann::json& baseline) {
  nlohmann::json want = factors;
  for (const auto& [k, v] : baseline.items())
    if (want.contains(k)) want[k] = v;
  return want;
}

bool is_baseline_row(const nlohmann::json& factors, const nlohmann::json& baseline) {
  if (!baseline.is_object() || baseline.empty() || !factors.is_object()) return false;
  return baseline_factors(factors, baseline) == factors;
}

using protocol::kMaxC2cCpus;
using protocol::kMaxCpuId;

bool is_cpu_id(const nlohmann::json& v) {
  if (!v.is_number_integer()) return false;
  if (v.is_number_unsigned())
    return v.get<std::uint64_t>() <= static_cast<std::uint64_t>(kMaxCpuId);
  return v.get<std::int64_t>() >= 0 && v.get<std::int64_t>() <= kMaxCpuId;
}

// A CPU-list string is expanded only when every number in it is a CPU id in range (checked on
// the text first: "0-4000000000" must not become a 16 GB vector).
bool cpu_list_text_in_range(const std::string& text) {
  std::uint64_t number = 0;
  for (char c : text) {
    number = (c >= '0' && c <= '9') ? number * 10 + static_cast<std::uint64_t>(c - '0') : 0;
    if (number > static_cast<std::uint64_t>(kMaxCpuId)) return false;
  }
  return text.size() <= protocol::kMaxTextBytes;
}

std::vector<int> cpu_ids(const nlohmann::json& j, std::size_t n) {
  std::vector<int> out;
  if (j.is_array() && j.size() <= kMaxC2cCpus) {
    for (const auto& v : j)
      if (is_cpu_id(v)) out.push_back(v.get<int>());
  } else if (j.is_string() && cpu_list_text_in_range(j.get<std::string>())) {
    auto l = topolab::CpuList::parse(j.get<std::string>());
    if (l) out = l->ids();
  }
  if (out.size() != n) {
    out.clear();
    for (std::size_t i = 0; i < n; ++i) out.push_back(static_cast<int>(i));
  }
  return out;
}

double num(const nlohmann::json& v) { return v.is_number() ? v.get<double>() : kNaN; }

}  // namespace

statistics::Verdict ReportRow::verdict() const {
  if (is_baseline) return statistics::Verdict::kBaseline;
  return difference ? difference->verdict : statistics::Verdict::kNoData;
}

std::string verdict_method(const ReportData& data) {
  char alpha[32];
  std::snprintf(alpha, sizeof alpha, "%g", data.verdicts.alpha);
  const std::string correction =
      data.verdicts.correct ? "Holm-corrected over " + std::to_string(data.tested) + " differences"
                            : "not corrected for multiple comparisons (--no-correction)";
  return "verdicts: two-sided Mann-Whitney U, " + correction + ", alpha " + alpha +
         "; 95% interval: Hodges-Lehmann of the ratio (log values); fewer than " +
         std::to_string(statistics::kMinRunsPerSide) +
         " runs per side: too_few_runs, only the range of the change";
}

void compute_statistics(ReportData& data, const nlohmann::json& baseline,
                        const VerdictOptions& options) {
  data.verdicts = options;
  for (auto& r : data.rows) {
    r.n = static_cast<double>(r.values.size());
    r.median = median(r.values);
    r.min = min_of(r.values);
    r.max = max_of(r.values);
    r.mean = mean(r.values);
    r.cv = cv(r.values);
    r.is_baseline = is_baseline_row(r.factors, baseline);
  }
  if (!baseline.is_object() || baseline.empty()) return;
  std::vector<statistics::Difference*> differences;
  for (auto& r : data.rows) {
    // Not against itself; a cell whose stored factors are unreadable (not an object) has no
    // baseline: two such cells compared equal and got each other as baseline (redteam).
    if (r.values.empty() || r.is_baseline || !r.factors.is_object()) continue;
    const nlohmann::json want = baseline_factors(r.factors, baseline);
    for (const auto& b : data.rows) {
      if (!b.is_baseline || b.benchmark_index != r.benchmark_index || b.factors != want ||
          b.host != r.host || b.values.empty())
        continue;
      auto d = statistics::measure_difference(r.values, b.values, r.lower_is_better, options.alpha);
      if (!std::isfinite(d.change_pct)) break;
      r.penalty = d.change_pct;
      r.difference = d;
      differences.push_back(&*r.difference);
      break;
    }
  }
  statistics::decide_verdicts(differences, options.alpha, options.correct);
  for (const auto* d : differences) data.tested += d->tested() ? 1 : 0;
}

std::optional<LatencyMatrix> latency_matrix_from_result(const nlohmann::json& result) {
  if (!result.is_object() || !result.contains("details")) return std::nullopt;
  const auto& d = result["details"];
  if (!d.is_object()) return std::nullopt;
  LatencyMatrix m;
  for (const char* key : {"matrix_ns", "matrix", "latency_ns"}) {
    if (!d.contains(key) || !d[key].is_array()) continue;
    if (d[key].size() > kMaxC2cCpus) return std::nullopt;
    for (const auto& row : d[key]) {
      if (row.is_array() && row.size() > kMaxC2cCpus) return std::nullopt;
      std::vector<double> r;
      if (row.is_array())
        for (const auto& v : row) r.push_back(num(v));
      m.ns.push_back(std::move(r));
    }
    break;
  }
  if (m.ns.empty() && d.contains("pairs") && d["pairs"].is_array()) {
    // [{"a":0,"b":1,"ns":80.5}, ...]
    std::map<int, int> index;
    for (const auto& p : d["pairs"]) {
      for (const char* k : {"a", "b"})
        if (p.is_object() && p.contains(k) && is_cpu_id(p[k])) index.emplace(p[k].get<int>(), 0);
      // The n x n matrix below is allocated from this count: bounded first.
      if (index.size() > kMaxC2cCpus) return std::nullopt;
    }
    int i = 0;
    for (auto& [cpu, idx] : index) {
      idx = i++;
      m.cpus.push_back(cpu);
    }
    m.ns.assign(index.size(), std::vector<double>(index.size(), kNaN));
    for (const auto& p : d["pairs"]) {
      if (!p.is_object() || !p.contains("a") || !p.contains("b") || !is_cpu_id(p["a"]) ||
          !is_cpu_id(p["b"]))
        continue;
      int a = index[p["a"].get<int>()], b = index[p["b"].get<int>()];
      double v = num(p.contains("median_ns") ? p["median_ns"] : p.value("ns", nlohmann::json()));
      m.ns[a][b] = v;
      m.ns[b][a] = v;
    }
    return m.ns.empty() ? std::nullopt : std::optional<LatencyMatrix>(m);
  }
  if (m.ns.empty()) return std::nullopt;
  for (const auto& row : m.ns)
    if (row.size() != m.ns.size()) return std::nullopt;
  m.cpus = cpu_ids(d.value("cpus", nlohmann::json()), m.ns.size());
  return m;
}

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
      out.ns[i][j] = v.empty() ? kNaN : median(v);
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

}  // namespace

Result<ReportData> load_report(store::ResultStore& store, const std::string& name,
                               const VerdictOptions& options) {
  auto exps = store.experiments();
  if (!exps) return exps.error();
  if (exps->empty())
    return make_error(ErrorKind::not_found, "store " + store.path().string() + ": no experiments");
  const store::StoredExperiment* exp = nullptr;
  std::string names;
  for (const auto& e : *exps) {
    names += (names.empty() ? "" : ", ") + e.name;
    if (e.name == name) exp = &e;
  }
  if (name.empty()) {
    if (exps->size() > 1)
      return make_error(ErrorKind::input,
                        "store " + store.path().string() +
                            " holds several experiments; choose one with --experiment: " + names);
    exp = &exps->front();
  }
  if (!exp)
    return make_error(ErrorKind::not_found, "store " + store.path().string() + ": no experiment '" +
                                                name + "'; it holds: " + names);
  ReportData data;
  data.experiment = exp->name;
  const nlohmann::json baseline = stored_baseline(exp->spec);
  for (const auto& [k, v] : baseline.items())
    data.baseline += (data.baseline.empty() ? "" : " ") + k + "=" +
                     (v.is_string() ? v.get<std::string>() : v.dump());
  const std::vector<std::string> benches = stored_benchmark_names(exp->spec);
  data.warnings = spec_warnings(exp->spec);
  auto cells = store.cells(exp->id);
  if (!cells) return cells.error();
  data.hosts = store_hosts(*cells);
  const std::size_t bench_count = std::max<std::size_t>(benches.size(), 1);
  std::size_t unreadable_factors = 0;
  std::string first_unreadable;
  for (const auto& c : *cells) {
    if (!baseline.empty() && !c.cell.factors.is_object() && unreadable_factors++ == 0)
      first_unreadable = c.cell.label;
    auto runs = store.runs(c.id);
    if (!runs) return runs.error();
    bool mismatch = c.mismatches.is_array() && !c.mismatches.empty();
    std::string error = c.error;
    if (error.empty()) {
      auto f = store.failures(c.id);
      if (f && !f->empty()) error = f->back();
    }
    std::vector<LatencyMatrix> matrices;
    for (const auto& r : *runs)  // a run no row below would pick up is said, not dropped
      if (r.benchmark_index < 0 || static_cast<std::size_t>(r.benchmark_index) >= bench_count)
        data.invalid_runs.push_back({r.id, c.cell.label, r.benchmark,
                                     "benchmark index " + std::to_string(r.benchmark_index) +
                                         " names no benchmark of the stored experiment (it has " +
                                         std::to_string(benches.size()) + ")"});
    for (std::size_t b = 0; b < bench_count; ++b) {
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
      row.benchmark = b < benches.size() ? benches[b] : "";
      row.status = c.status;
      row.mismatch = mismatch;
      row.error = error;
      for (const auto& r : *runs) {
        if (r.benchmark_index != static_cast<int>(b)) continue;
        if (row.benchmark.empty()) row.benchmark = r.benchmark;
        // The same typed reader as at receipt: a bad stored row is listed, never thrown on.
        auto valid = protocol::validate_result(r.result);
        if (!valid) {
          data.invalid_runs.push_back({r.id, c.cell.label, r.benchmark, valid.error().message});
          continue;
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
          if (valid->environment.contains("placement"))
            m->placement = valid->environment["placement"];
          matrices.push_back(*m);
        }
      }
      data.rows.push_back(std::move(row));
    }
    if (!matrices.empty()) {
      LatencyMatrix m = combine(matrices);
      m.cell = row_ref(c.cell.label, data.hosts.empty() ? "" : c.cell.host);
      if (data.hosts.empty()) m.host_topology = exp->host_topology;
      if (experiment_backend(*exp) == "host") {  // the benchmark's CPUs are the host's
        m.topology = exp->host_topology;
        m.cpus_are_host_cpus = true;
      } else if (c.boot_id) {
        auto boot = store.boot(c.boot_id);
        if (boot) m.topology = boot->boot.seen;  // absent or unreadable: no topology shown
      }
      data.matrices.push_back(std::move(m));
    }
  }
  if (unreadable_factors > 0)  // one line, however many cells: a warning must not flood
    data.warnings.push_back(std::to_string(unreadable_factors) +
                            " cell(s) have unreadable stored factors, so no baseline and no "
                            "penalty for them (first: " +
                            first_unreadable + ")");
  compute_statistics(data, baseline, options);
  data.context = load_context(store, *exp, *cells, data.hosts);
  assess_rows(data, exp->spec);
  data.pictures = load_pictures(store, *exp, *cells);
  return data;
}

}  // namespace topolab::report
