#include "orchestrator/report/report_data.hpp"

#include <cmath>
#include <limits>
#include <map>

#include "common/cpu_list.hpp"
#include "orchestrator/store/result_store.hpp"

namespace topolab::report {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

nlohmann::json baseline_factors(const nlohmann::json& factors, const nlohmann::json& baseline) {
  nlohmann::json want = factors;
  for (const auto& [k, v] : baseline.items())
    if (want.contains(k)) want[k] = v;
  return want;
}

bool is_baseline_row(const nlohmann::json& factors, const nlohmann::json& baseline) {
  if (!baseline.is_object() || baseline.empty()) return false;
  return baseline_factors(factors, baseline) == factors;
}

std::vector<int> cpu_ids(const nlohmann::json& j, std::size_t n) {
  std::vector<int> out;
  if (j.is_array()) {
    for (const auto& v : j)
      if (v.is_number_integer()) out.push_back(v.get<int>());
  } else if (j.is_string()) {
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

void compute_statistics(ReportData& data, const nlohmann::json& baseline) {
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
  for (auto& r : data.rows) {
    if (r.values.empty() || r.is_baseline) continue;  // not against itself
    const nlohmann::json want = baseline_factors(r.factors, baseline);
    for (const auto& b : data.rows) {
      if (b.benchmark_index != r.benchmark_index || b.factors != want || b.values.empty()) continue;
      double p = penalty_percent(r.median, b.median);
      if (std::isfinite(p)) {
        r.penalty = p;
        r.penalty_ci = bootstrap_penalty_ci(r.values, b.values);
      }
    }
  }
}

std::optional<LatencyMatrix> latency_matrix_from_result(const nlohmann::json& result) {
  if (!result.is_object() || !result.contains("details")) return std::nullopt;
  const auto& d = result["details"];
  if (!d.is_object()) return std::nullopt;
  LatencyMatrix m;
  for (const char* key : {"matrix_ns", "matrix", "latency_ns"}) {
    if (!d.contains(key) || !d[key].is_array()) continue;
    for (const auto& row : d[key]) {
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
        if (p.contains(k) && p[k].is_number_integer()) index.emplace(p[k].get<int>(), 0);
    }
    int i = 0;
    for (auto& [cpu, idx] : index) {
      idx = i++;
      m.cpus.push_back(cpu);
    }
    m.ns.assign(index.size(), std::vector<double>(index.size(), kNaN));
    for (const auto& p : d["pairs"]) {
      if (!p.contains("a") || !p.contains("b") || !p["a"].is_number_integer() ||
          !p["b"].is_number_integer())
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

}  // namespace

Result<ReportData> load_report(store::ResultStore& store, const std::string& name) {
  auto exps = store.experiments();
  if (!exps) return exps.error();
  if (exps->empty()) return make_error("store " + store.path().string() + ": no experiments");
  const store::StoredExperiment* exp = nullptr;
  std::string names;
  for (const auto& e : *exps) {
    names += (names.empty() ? "" : ", ") + e.name;
    if (e.name == name) exp = &e;
  }
  if (name.empty()) {
    if (exps->size() > 1)
      return make_error("store " + store.path().string() +
                        " holds several experiments; choose one with --experiment: " + names);
    exp = &exps->front();
  }
  if (!exp)
    return make_error("store " + store.path().string() + ": no experiment '" + name +
                      "'; it holds: " + names);
  ReportData data;
  data.experiment = exp->name;
  nlohmann::json baseline = exp->spec.value("baseline", nlohmann::json::object());
  for (const auto& [k, v] : baseline.items())
    data.baseline += (data.baseline.empty() ? "" : " ") + k + "=" +
                     (v.is_string() ? v.get<std::string>() : v.dump());
  const nlohmann::json benches = exp->spec.value("benchmarks", nlohmann::json::array());
  auto cells = store.cells(exp->id);
  if (!cells) return cells.error();
  for (const auto& c : *cells) {
    auto runs = store.runs(c.id);
    if (!runs) return runs.error();
    bool mismatch = c.mismatches.is_array() && !c.mismatches.empty();
    std::string error = c.error;
    if (error.empty()) {
      auto f = store.failures(c.id);
      if (f && !f->empty()) error = f->back();
    }
    std::vector<LatencyMatrix> matrices;
    for (std::size_t b = 0; b < std::max<std::size_t>(benches.size(), 1); ++b) {
      ReportRow row;
      row.cell = c.cell.label;
      row.factors = c.cell.factors;
      row.benchmark_index = static_cast<int>(b);
      row.benchmark = b < benches.size() ? benches[b].value("name", "") : "";
      row.status = c.status;
      row.mismatch = mismatch;
      row.error = error;
      for (const auto& r : *runs) {
        if (r.benchmark_index != static_cast<int>(b)) continue;
        if (row.benchmark.empty()) row.benchmark = r.benchmark;
        row.unit = r.result.value("unit", "");
        row.lower_is_better = r.result.value("lower_is_better", true);
        if (std::isfinite(r.value)) row.values.push_back(r.value);
        if (auto m = latency_matrix_from_result(r.result)) matrices.push_back(*m);
      }
      data.rows.push_back(std::move(row));
    }
    if (!matrices.empty()) {
      LatencyMatrix m = combine(matrices);
      m.cell = c.cell.label;
      if (c.boot_id) {
        auto boot = store.boot(c.boot_id);
        if (boot && *boot) m.topology = (*boot)->boot.seen;
      }
      data.matrices.push_back(std::move(m));
    }
  }
  compute_statistics(data, baseline);
  return data;
}

}  // namespace topolab::report
