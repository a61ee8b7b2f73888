#include "orchestrator/results/report/compare.hpp"

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
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CompareRow c;
  c.cell = row_ref(a);
  c.benchmark = a.benchmark;
  c.benchmark_index = a.benchmark_index;
  c.unit = a.unit.empty() ? b.unit : a.unit;
  c.lower_is_better = a.values.empty() ? b.lower_is_better : a.lower_is_better;
  c.a = a.values;
  c.b = b.values;
  c.median_a = statistics::median(c.a);
  c.median_b = statistics::median(c.b);
  const bool same_unit = a.unit == b.unit || a.values.empty() || b.values.empty();
  c.test = statistics::mann_whitney_u(c.b, c.a);
  c.difference = statistics::measure_difference(c.b, c.a, c.lower_is_better, alpha);
  if (!same_unit) {  // not tested, so decide_verdicts leaves it alone
    c.difference = statistics::Difference{};
    c.difference.p_value = c.difference.p_adjusted = nan;
    c.difference.range_pct = {nan, nan};
    c.unit = a.unit + " vs " + b.unit;
    c.units_differ = true;
  }
  c.delta_pct = same_unit ? c.difference.change_pct : nan;
  c.mismatch = a.mismatch && b.mismatch ? "A and B" : a.mismatch ? "A" : b.mismatch ? "B" : "";
  c.telemetry = telemetry_delta(a, b);
  return c;
}

// The verdicts of all rows at once (Holm over the rows), then the text and interval per row.
void decide(CompareData& d) {
  std::vector<statistics::Difference*> ds;
  for (auto& r : d.rows) ds.push_back(&r.difference);
  statistics::decide_verdicts(ds, d.verdicts.alpha, d.verdicts.correct);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (auto& r : d.rows) {
    d.tested += r.difference.tested() ? 1 : 0;
    r.verdict = r.units_differ ? "units differ"
                               : std::string(statistics::verdict_name(r.difference.verdict));
    r.delta_ci = r.difference.ci_pct.value_or(Interval{nan, nan});
  }
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

CompareData compare_reports(const ReportData& a, const ReportData& b, std::string label_a,
                            std::string label_b, const VerdictOptions& options) {
  CompareData d;
  d.a = {std::move(label_a), a.context};
  d.b = {std::move(label_b), b.context};
  d.alpha = options.alpha;
  d.verdicts = options;
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
    d.rows.push_back(compare_row(r, *it->second, options.alpha));
  }
  for (const auto& r : b.rows)
    if (!matched.count(key_of(r))) d.only_b.push_back(key_text(r));
  decide(d);
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
