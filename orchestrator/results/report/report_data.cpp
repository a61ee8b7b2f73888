#include "orchestrator/results/report/report_data.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

#include "common/cpu_list.hpp"
#include "orchestrator/base/statistics/descriptive.hpp"
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

bool cpu_list_text_in_range(const std::string& text) {
  std::uint64_t number = 0;
  for (char c : text) {
    number = (c >= '0' && c <= '9') ? number * 10 + static_cast<std::uint64_t>(c - '0') : 0;
    if (number > static_cast<std::uint64_t>(kMaxCpuId)) return false;
  }
  return text.size() <= protocol::kMaxTextBytes;
}

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

}  // namespace topolab::report
