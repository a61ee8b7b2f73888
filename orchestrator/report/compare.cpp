#include "orchestrator/report/compare.hpp"

#include <cmath>
#include <limits>
#include <map>
#include <tuple>

namespace topolab::report {
namespace {

using Key = std::tuple<std::string, int, std::string>;

// A store of several hosts: the host is part of the cell (row_ref), never matched across hosts.
Key key_of(const ReportRow& r) { return {row_ref(r), r.benchmark_index, r.benchmark}; }

std::string key_text(const ReportRow& r) { return row_ref(r) + " / " + r.benchmark; }

CompareRow compare_row(const ReportRow& a, const ReportRow& b, double alpha) {
  CompareRow c;
  c.cell = row_ref(a);
  c.benchmark = a.benchmark;
  c.benchmark_index = a.benchmark_index;
  c.unit = a.unit.empty() ? b.unit : a.unit;
  c.lower_is_better = a.values.empty() ? b.lower_is_better : a.lower_is_better;
  c.a = a.values;
  c.b = b.values;
  c.median_a = median(c.a);
  c.median_b = median(c.b);
  const bool same_unit = a.unit == b.unit || a.values.empty() || b.values.empty();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  c.delta_pct = same_unit ? penalty_percent(c.median_b, c.median_a) : nan;
  c.delta_ci = same_unit ? bootstrap_penalty_ci(c.b, c.a) : Interval{nan, nan};
  c.test = mann_whitney_u(c.b, c.a);
  if (!same_unit) c.unit = a.unit + " vs " + b.unit;
  c.verdict = same_unit ? compare_verdict(c, alpha) : "units differ";
  c.mismatch = a.mismatch && b.mismatch ? "A and B" : a.mismatch ? "A" : b.mismatch ? "B" : "";
  return c;
}

}  // namespace

bool CompareData::emulated() const {
  return (a.context && a.context->experiment.emulated) ||
         (b.context && b.context->experiment.emulated);
}

std::string CompareData::emulated_sides() const {
  const bool ea = a.context && a.context->experiment.emulated;
  const bool eb = b.context && b.context->experiment.emulated;
  return ea && eb ? "A and B" : ea ? "A" : eb ? "B" : "";
}

std::string verdict_text(const CompareRow& row) {
  return row.mismatch.empty() ? row.verdict
                              : row.verdict + " (topology mismatch in " + row.mismatch + ")";
}

std::string compare_verdict(const CompareRow& row, double alpha) {
  if (row.a.empty() || row.b.empty() || std::isnan(row.test.p_value)) return "no data";
  if (row.test.p_value < alpha) {
    if (!std::isfinite(row.delta_pct) || row.delta_pct == 0) return "significant";
    const bool b_higher = row.delta_pct > 0;
    return std::string("significant: ") + (b_higher == row.lower_is_better ? "worse" : "better");
  }
  if (row.test.min_p >= alpha) return "too few runs";
  return "not significant";
}

CompareData compare_reports(const ReportData& a, const ReportData& b, std::string label_a,
                            std::string label_b, double alpha) {
  CompareData d;
  d.a = {std::move(label_a), a.context};
  d.b = {std::move(label_b), b.context};
  d.alpha = alpha;
  std::map<Key, const ReportRow*> in_b;
  for (const auto& r : b.rows) in_b.emplace(key_of(r), &r);
  std::map<Key, bool> matched;
  for (const auto& r : a.rows) {
    auto it = in_b.find(key_of(r));
    if (it == in_b.end()) {
      d.only_a.push_back(key_text(r));
      continue;
    }
    if (matched[key_of(r)]) continue;  // a duplicated key (hostile store): first one only
    matched[key_of(r)] = true;
    d.rows.push_back(compare_row(r, *it->second, alpha));
  }
  for (const auto& r : b.rows)
    if (!matched.count(key_of(r))) d.only_b.push_back(key_text(r));
  for (const auto& w : a.warnings) d.warnings.push_back("A: " + w);
  for (const auto& w : b.warnings) d.warnings.push_back("B: " + w);
  if (!a.invalid_runs.empty())
    d.warnings.push_back("A: " + std::to_string(a.invalid_runs.size()) +
                         " stored run(s) failed validation and are left out");
  if (!b.invalid_runs.empty())
    d.warnings.push_back("B: " + std::to_string(b.invalid_runs.size()) +
                         " stored run(s) failed validation and are left out");
  return d;
}

}  // namespace topolab::report
