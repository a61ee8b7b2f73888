#include "orchestrator/report/compare_reporter.hpp"

#include <cmath>
#include <cstdio>
#include <memory>
#include <tuple>
#include <vector>

#include "common/json_text.hpp"
#include "common/terminal_text.hpp"
#include "orchestrator/report/markdown_reporter.hpp"
#include "orchestrator/report/report_text.hpp"
#include "orchestrator/report/reporter.hpp"

namespace topolab::report {

const char* const kCompareMethod =
    "delta = 100 * (median B / median A - 1); 95% CI: Hodges-Lehmann interval of the ratio B/A "
    "on log values (none below 5 runs per side: too_few_runs, the range instead); p: two-sided "
    "Mann-Whitney U test (exact without ties up to 50 runs, else normal approximation with tie "
    "correction), Holm-corrected over the rows unless --no-correction; better/worse when the "
    "adjusted p < alpha";

namespace {

// "WARNING (A): ...", "(B)" or "(A and B)": which side's figures are emulated.
std::string tcg_warning_line(const CompareData& d) {
  return "WARNING (" + d.emulated_sides() + "): " + kTcgWarning;
}

// The context fields of both sides, A and B, in one list: (name, value A, value B).
std::vector<std::tuple<std::string, std::string, std::string>> side_fields(const CompareData& d) {
  const ExperimentContext none;
  const auto fa = experiment_fields(d.a.context ? d.a.context->experiment : none);
  const auto fb = experiment_fields(d.b.context ? d.b.context->experiment : none);
  std::vector<std::tuple<std::string, std::string, std::string>> out;
  for (std::size_t i = 0; i < fa.size(); ++i)
    out.emplace_back(fa[i].first, fa[i].second, fb[i].second);
  return out;
}

}  // namespace

std::string delta_text(double pct) {
  if (!std::isfinite(pct)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", pct);
  return buf;
}

std::string ci_text(const Interval& ci) {
  if (!std::isfinite(ci.low) || !std::isfinite(ci.high)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "[%+.1f, %+.1f]", ci.low, ci.high);
  return buf;
}

// The interval, or with too few runs the range of the change (as the single-store table).
std::string interval_or_range(const CompareRow& r) {
  if (std::isfinite(r.delta_ci.low) && std::isfinite(r.delta_ci.high)) return ci_text(r.delta_ci);
  const auto& range = r.difference.range_pct;
  if (!std::isfinite(range.low) || !std::isfinite(range.high)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "range %+.1f..%+.1f%%", range.low, range.high);
  return buf;
}

std::string p_text(const CompareRow& r) {
  if (!std::isfinite(r.difference.p_adjusted)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", r.difference.p_adjusted);
  return buf;
}

void ConsoleCompareReporter::report(const CompareData& d) {
  out_ << "compare A: " << tt(d.a.label) << "\n        B: " << tt(d.b.label) << "\n";
  if (d.emulated()) out_ << tcg_warning_line(d) << "\n";
  std::vector<std::vector<std::string>> ctx = {{"context", "A", "B"}};
  for (const auto& [name, a, b] : side_fields(d)) ctx.push_back({name, tt(a), tt(b)});
  print_aligned(out_, ctx, 3);
  out_ << "\n";
  std::vector<std::vector<std::string>> table = {{"cell", "benchmark", "unit", "n A", "n B",
                                                  "median A", "median B", "delta", "95% CI",
                                                  "p adj", "verdict"}};
  for (const auto& r : d.rows)
    table.push_back({tt(r.cell), tt(r.benchmark), tt(r.unit), std::to_string(r.a.size()),
                     std::to_string(r.b.size()), format_number(r.median_a),
                     format_number(r.median_b), delta_text(r.delta_pct), interval_or_range(r),
                     p_text(r), verdict_text(r)});
  print_aligned(out_, table, 3);
  console_telemetry_deltas(out_, d);
  for (const auto& k : d.only_a) out_ << "only in A: " << tt(k) << "\n";
  for (const auto& k : d.only_b) out_ << "only in B: " << tt(k) << "\n";
  for (const auto& w : d.warnings) out_ << "warning: " << tt(w) << "\n";
  out_ << kCompareMethod << " = " << format_number(d.alpha) << " ("
       << (d.verdicts.correct ? "Holm over " + std::to_string(d.tested) + " rows" : "not corrected")
       << ").\n";
  if (d.emulated()) out_ << tcg_warning_line(d) << "\n";
}

void CsvCompareReporter::report(const CompareData& d) {
  const auto fields = side_fields(d);
  out_ << "cell,benchmark,unit,n_a,n_b,median_a,median_b,delta_pct,ci_low,ci_high,u,p_value,"
          "p_exact,verdict,topology_mismatch";
  for (const auto& f : fields) out_ << ",a_" << std::get<0>(f);
  for (const auto& f : fields) out_ << ",b_" << std::get<0>(f);
  out_ << ",emulated,context_warning" << csv_telemetry_delta_header(d) << "\n";
  std::string context;
  for (const auto& f : fields) context += "," + csv_field(std::get<1>(f));
  for (const auto& f : fields) context += "," + csv_field(std::get<2>(f));
  context += d.emulated() ? ",1," + csv_field(kTcgWarning) : ",0,";
  for (const auto& r : d.rows)
    out_ << csv_field(r.cell) << "," << csv_field(r.benchmark) << "," << csv_field(r.unit) << ","
         << r.a.size() << "," << r.b.size() << "," << format_number(r.median_a) << ","
         << format_number(r.median_b) << "," << format_number(r.delta_pct) << ","
         << format_number(r.delta_ci.low) << "," << format_number(r.delta_ci.high) << ","
         << format_number(r.test.u) << "," << format_number(r.test.p_value) << ","
         << (r.test.exact ? "1" : "0") << "," << csv_field(r.verdict) << ","
         << csv_field(r.mismatch) << context << csv_telemetry_delta_values(d, &r.telemetry) << "\n";
  // A cell / benchmark on one side only: its key in the first column, the verdict says which.
  for (const auto* side : {&d.only_a, &d.only_b})
    for (const auto& k : *side)
      out_ << csv_field(k) << ",,,,,-,-,-,-,-,-,-,0,"
           << (side == &d.only_a ? "only in A" : "only in B") << "," << context
           << csv_telemetry_delta_values(d, nullptr) << "\n";
}

nlohmann::json compare_to_json(const CompareData& d) {
  nlohmann::json rows = nlohmann::json::array();
  const bool telemetry = compare_has_telemetry(d);
  for (const auto& r : d.rows) {
    rows.push_back({{"cell", r.cell},
                    {"p_adjusted", number_or_null(r.difference.p_adjusted)},
                    {"delta_range",
                     {number_or_null(r.difference.range_pct.low),
                      number_or_null(r.difference.range_pct.high)}},
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
                    {"topology_mismatch", r.mismatch}});
    if (telemetry) rows.back()["telemetry"] = telemetry_delta_json(r.telemetry);
  }
  nlohmann::json ctx_a = nlohmann::json::object(), ctx_b = nlohmann::json::object();
  for (const auto& [name, a, b] : side_fields(d)) ctx_a[name] = a, ctx_b[name] = b;
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

// Labels from a store may hold bytes that are not UTF-8: replaced, never thrown.
void JsonCompareReporter::report(const CompareData& d) {
  out_ << json_document(compare_to_json(d));
}

namespace {

template <class R>
std::unique_ptr<CompareReporter> new_compare_reporter(std::ostream& out) {
  return std::make_unique<R>(out);
}

struct CompareReporterFormat {
  const char* name;
  std::unique_ptr<CompareReporter> (*make)(std::ostream&);
};

// One row per format, the names of report_formats() (reporter.cpp; a test checks they agree).
constexpr CompareReporterFormat kCompareReporterFormats[] = {
    {"table", new_compare_reporter<ConsoleCompareReporter>},
    {"csv", new_compare_reporter<CsvCompareReporter>},
    {"json", new_compare_reporter<JsonCompareReporter>},
    {"html", new_compare_reporter<HtmlCompareReporter>},
    {"markdown", new_compare_reporter<MarkdownCompareReporter>},
};

}  // namespace

Result<std::unique_ptr<CompareReporter>> make_compare_reporter(std::string_view format,
                                                               std::ostream& out) {
  for (const auto& f : kCompareReporterFormats)
    if (format == f.name) return f.make(out);
  return make_error("--format '" + std::string(format) + "': expected " + report_format_choices());
}

}  // namespace topolab::report
