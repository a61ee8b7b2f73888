#include "orchestrator/results/report/json_reporter.hpp"

#include "common/json_text.hpp"
#include "orchestrator/base/statistics/descriptive.hpp"
#include "orchestrator/results/report/c2c_class_table.hpp"
#include "orchestrator/results/report/telemetry_table.hpp"

namespace topolab::report {
namespace {

// A stored count stays a number in JSON; "unknown" stays text.
nlohmann::json json_context_value(const std::string& name, const std::string& value) {
  if (name == "boot_retries" && !value.empty() && value.size() < 9 &&
      value.find_first_not_of("0123456789") == std::string::npos)
    return std::stoi(value);
  return value;
}

nlohmann::json context_to_json(const ReportContext& ctx) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, value] : experiment_fields(ctx.experiment)) j[name] = value;
  j["emulated"] = ctx.experiment.emulated;
  j["warning"] = ctx.experiment.emulated ? nlohmann::json(kTcgWarning) : nlohmann::json();
  return j;
}

nlohmann::json cell_context_json(const ReportContext& ctx, const std::string& cell) {
  nlohmann::json j = nlohmann::json::object();
  const CellContext& c = cell_context(ctx, cell);
  for (const auto& [name, value] : cell_fields(c)) j[name] = json_context_value(name, value);
  if (!c.conditions.empty()) j["conditions"] = c.conditions;  // issue 25
  return j;
}

nlohmann::json interval_json(const std::optional<Interval>& i) {
  if (!i) return nullptr;
  return nlohmann::json::array({number_or_null(i->low), number_or_null(i->high)});
}

// Interval, range, p, verdict, noise and the adaptive cap: the same fields in CSV and JSON.
void add_difference_json(nlohmann::json& j, const ReportRow& r) {
  const auto* d = r.difference ? &*r.difference : nullptr;
  j["penalty_ci"] = interval_json(d ? d->ci_pct : std::nullopt);
  j["penalty_range"] = d ? interval_json(d->range_pct) : nlohmann::json();
  j["p_value"] = d ? number_or_null(d->p_value) : nullptr;
  j["p_adjusted"] = d ? number_or_null(d->p_adjusted) : nullptr;
  j["verdict"] = statistics::verdict_name(r.verdict());
  j["noise"] = r.noise;
  j["stopped_at_cap"] = r.stopped_at_cap;
}

nlohmann::json report_row_json(const ReportData& data, const ReportRow& r) {
  nlohmann::json j = {{"cell", r.cell},
                      {"factors", r.factors},
                      {"benchmark", r.benchmark},
                      {"benchmark_index", r.benchmark_index},
                      {"unit", r.unit},
                      {"lower_is_better", r.lower_is_better},
                      {"values", r.values},
                      {"n", r.values.size()},
                      {"median", number_or_null(r.median)},
                      {"min", number_or_null(r.min)},
                      {"max", number_or_null(r.max)},
                      {"mean", number_or_null(r.mean)},
                      {"cv", number_or_null(r.cv)},
                      {"is_baseline", r.is_baseline},
                      {"penalty_pct", r.penalty ? nlohmann::json(*r.penalty) : nullptr},
                      {"status", r.status},
                      {"mismatch", r.mismatch},
                      {"error", r.error}};
  add_difference_json(j, r);
  if (auto t = telemetry_json(r); !t.is_null()) j["telemetry"] = t;
  if (!r.host.empty()) j["host"] = r.host;
  if (data.context) j["cell_context"] = cell_context_json(*data.context, row_ref(r));
  return j;
}

nlohmann::json latency_matrix_json(const LatencyMatrix& m) {
  nlohmann::json ns = nlohmann::json::array();
  for (const auto& row : m.ns) {
    nlohmann::json r = nlohmann::json::array();
    for (double v : row) r.push_back(number_or_null(v));
    ns.push_back(r);
  }
  return {{"cell", m.cell},
          {"cpus", m.cpus},
          {"ns", ns},
          {"c2c_classes", c2c_views_json(c2c_views(m))}};
}

nlohmann::json verdicts_json(const ReportData& data) {
  return {{"alpha", data.verdicts.alpha},
          {"correction", data.verdicts.correct ? "holm" : "none"},
          {"tested", data.tested},
          {"min_runs_per_side", statistics::kMinRunsPerSide},
          {"method", verdict_method(data)}};
}

nlohmann::json compare_row_json(const CompareRow& r) {
  return {
      {"cell", r.cell},
      {"p_adjusted", number_or_null(r.difference.p_adjusted)},
      {"delta_range",
       {number_or_null(r.difference.range_pct.low), number_or_null(r.difference.range_pct.high)}},
      {"benchmark", r.benchmark},
      {"benchmark_index", r.benchmark_index},
      {"unit", r.unit},
      {"lower_is_better", r.lower_is_better},
      {"values_a", r.a},
      {"values_b", r.b},
      {"median_a", number_or_null(r.median_a)},
      {"median_b", number_or_null(r.median_b)},
      {"delta_pct", number_or_null(r.delta_pct)},
      {"delta_ci", {number_or_null(r.delta_ci.low), number_or_null(r.delta_ci.high)}},
      {"u", number_or_null(r.test.u)},
      {"p_value", number_or_null(r.test.p_value)},
      {"p_exact", r.test.exact},
      {"verdict", r.verdict},
      {"topology_mismatch", r.mismatch}};
}

}  // namespace

nlohmann::json report_to_json(const ReportData& data) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : data.rows) rows.push_back(report_row_json(data, r));
  nlohmann::json matrices = nlohmann::json::array();
  for (const auto& m : data.matrices) matrices.push_back(latency_matrix_json(m));
  nlohmann::json invalid = nlohmann::json::array();
  for (const auto& i : data.invalid_runs)
    invalid.push_back(
        {{"run_id", i.run_id}, {"cell", i.cell}, {"benchmark", i.benchmark}, {"reason", i.reason}});
  nlohmann::json out = {
      {"experiment", data.experiment},   {"baseline", data.baseline},    {"rows", rows},
      {"verdicts", verdicts_json(data)}, {"latency_matrices", matrices}, {"invalid_runs", invalid},
      {"warnings", data.warnings}};
  if (data.context) out["context"] = context_to_json(*data.context);
  if (!data.hosts.empty()) out["hosts"] = data.hosts;
  return out;
}

nlohmann::json compare_to_json(const CompareData& d) {
  nlohmann::json rows = nlohmann::json::array();
  const bool telemetry = compare_has_telemetry(d);
  for (const auto& r : d.rows) {
    rows.push_back(compare_row_json(r));
    if (telemetry) rows.back()["telemetry"] = telemetry_delta_json(r.telemetry);
  }
  nlohmann::json ctx_a = nlohmann::json::object(), ctx_b = nlohmann::json::object();
  for (const auto& [name, a, b] : compare_side_fields(d)) ctx_a[name] = a, ctx_b[name] = b;
  ctx_a["emulated"] = d.a.context && d.a.context->experiment.emulated;
  ctx_b["emulated"] = d.b.context && d.b.context->experiment.emulated;
  nlohmann::json out = {{"a", {{"label", d.a.label}, {"context", ctx_a}}},
                        {"b", {{"label", d.b.label}, {"context", ctx_b}}},
                        {"alpha", d.alpha},
                        {"correction", d.verdicts.correct ? "holm" : "none"},
                        {"tested", d.tested},
                        {"method", kCompareMethod},
                        {"rows", rows},
                        {"only_a", d.only_a},
                        {"only_b", d.only_b},
                        {"warnings", d.warnings},
                        {"emulated", d.emulated()},
                        {"warning", d.emulated() ? nlohmann::json(kTcgWarning) : nlohmann::json()}};
  if (telemetry) out["telemetry_method"] = kTelemetryDeltaMethod;
  return out;
}

// A stored label may hold bytes that are not UTF-8 (an older or hostile build): replaced, never
// thrown (nlohmann's dump() throws on invalid UTF-8 by default).
void JsonReporter::report(const ReportData& data) { out_ << json_document(report_to_json(data)); }

Result<void> JsonReporter::compare(const CompareData& d) {
  out_ << json_document(compare_to_json(d));
  return {};
}

}  // namespace topolab::report
