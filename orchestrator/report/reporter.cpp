#include "orchestrator/report/reporter.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "common/json_text.hpp"
#include "common/terminal_text.hpp"
#include "orchestrator/report/c2c_class_table.hpp"
#include "orchestrator/report/markdown_reporter.hpp"
#include "orchestrator/report/report_text.hpp"
#include "orchestrator/report/telemetry_table.hpp"
#include "orchestrator/statistics/descriptive.hpp"

namespace topolab::report {
namespace {

std::string status_text(const ReportRow& r) {
  std::string s = r.status;
  if (r.mismatch) s += ",mismatch";
  return s;
}

std::string cv_text(const ReportRow& r) {
  if (!std::isfinite(r.cv)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * r.cv);
  return buf;
}

// --- Context (issue 18): the same ordered fields in the table, CSV and JSON ---

void console_context(std::ostream& out, const ReportContext& ctx) {
  if (ctx.experiment.emulated) out << "WARNING: " << kTcgWarning << "\n";
  for (const auto& [name, value] : experiment_fields(ctx.experiment))
    out << "  " << name << std::string(name.size() < 17 ? 17 - name.size() : 1, ' ') << tt(value)
        << "\n";
}

// One line per cell (the rows repeat a cell once per benchmark).
void console_cell_context(std::ostream& out, const ReportData& data) {
  const bool hosts = !data.hosts.empty();
  std::vector<std::vector<std::string>> table = {{"cell"}};
  if (hosts) table[0].insert(table[0].begin(), "host");
  const auto& x = data.context->experiment;
  for (const auto& [name, value] : cell_fields(CellContext{})) table[0].push_back(name);
  for (const auto& [name, value] : condition_fields(x, CellContext{})) table[0].push_back(name);
  std::vector<std::string> seen;
  for (const auto& r : data.rows) {
    if (std::find(seen.begin(), seen.end(), row_ref(r)) != seen.end()) continue;
    seen.push_back(row_ref(r));
    std::vector<std::string> line = {tt(r.cell)};
    if (hosts) line.insert(line.begin(), tt(r.host));
    const auto& c = cell_context(*data.context, row_ref(r));
    for (const auto& [name, value] : cell_fields(c))
      line.push_back(value.empty() ? "-" : tt(value));
    for (const auto& [name, value] : condition_fields(x, c))
      line.push_back(value.empty() ? "-" : tt(value));
    table.push_back(std::move(line));
  }
  if (table.size() == 1) return;
  out << "\n";
  print_aligned(out, table, table[0].size());  // every column left-aligned text
}

std::string csv_context_header(const ReportData& data) {
  if (!data.context) return "";
  std::string out;
  for (const auto& [name, value] : experiment_fields(data.context->experiment)) out += "," + name;
  out += ",emulated,context_warning";
  for (const auto& [name, value] : cell_fields(CellContext{})) out += "," + name;
  for (const auto& [name, value] : condition_fields(data.context->experiment, CellContext{}))
    out += "," + name;
  return out;
}

std::string csv_context_values(const ReportData& data, const std::string& cell) {
  if (!data.context) return "";
  const auto& x = data.context->experiment;
  std::string out;
  for (const auto& [name, value] : experiment_fields(x)) out += "," + csv_field(value);
  out += std::string(x.emulated ? ",1," : ",0,") + (x.emulated ? csv_field(kTcgWarning) : "");
  const auto& c = cell_context(*data.context, cell);
  for (const auto& [name, value] : cell_fields(c)) out += "," + csv_field(value);
  for (const auto& [name, value] : condition_fields(x, c)) out += "," + csv_field(value);
  return out;
}

// A stored count stays a number in JSON; "unknown" stays text.
nlohmann::json json_value(const std::string& name, const std::string& value) {
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
  for (const auto& [name, value] : cell_fields(c)) j[name] = json_value(name, value);
  if (!c.conditions.empty()) j["conditions"] = c.conditions;  // issue 25
  return j;
}

using statistics::kNaN;

nlohmann::json interval_json(const std::optional<Interval>& i) {
  if (!i) return nullptr;
  return nlohmann::json::array({number_or_null(i->low), number_or_null(i->high)});
}

// Interval, range, p, verdict, noise and the adaptive cap: the same fields in CSV and JSON.
std::string csv_difference(const ReportRow& r) {
  const auto* d = r.difference ? &*r.difference : nullptr;
  auto field = [](double v) { return "," + format_number(v); };
  std::string out;
  out += field(d && d->ci_pct ? d->ci_pct->low : kNaN);
  out += field(d && d->ci_pct ? d->ci_pct->high : kNaN);
  out += field(d ? d->range_pct.low : kNaN) + field(d ? d->range_pct.high : kNaN);
  out += field(d ? d->p_value : kNaN) + field(d ? d->p_adjusted : kNaN);
  out += "," + std::string(statistics::verdict_name(r.verdict()));
  out += "," + csv_field(statistics::noise_text(r.noise)) + (r.stopped_at_cap ? ",1" : ",0");
  return out;
}

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

}  // namespace

std::string change_text(const ReportRow& r) {
  if (r.is_baseline) return "baseline";
  if (!r.difference) return "-";
  const auto& d = *r.difference;
  char buf[96];
  if (d.ci_pct)
    std::snprintf(buf, sizeof buf, "%+.1f%% [%+.1f, %+.1f]", d.change_pct, d.ci_pct->low,
                  d.ci_pct->high);
  else if (std::isfinite(d.range_pct.low) && std::isfinite(d.range_pct.high))
    std::snprintf(buf, sizeof buf, "range %+.1f..%+.1f%%", d.range_pct.low, d.range_pct.high);
  else
    return "-";
  return buf;
}

std::string verdict_text(const ReportRow& r, bool short_form) {
  if (!r.is_baseline && !r.difference) return "-";
  const auto v = r.verdict();
  return std::string(short_form ? statistics::verdict_mark(v) : statistics::verdict_name(v));
}

std::string noise_column(const ReportRow& r) {
  return r.noise.empty() ? "-" : statistics::noise_text(r.noise);
}

std::vector<std::string> cap_lines(const ReportData& data) {
  std::vector<std::string> out;
  for (const auto& r : data.rows)
    if (r.stopped_at_cap)
      out.push_back("stopped at adaptive.max_repetitions (" + std::to_string(r.values.size()) +
                    " runs), target unmet: " + row_ref(r) + " / " + r.benchmark);
  return out;
}

std::string csv_quoted(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string csv_field(const std::string& s) {
  return csv_quoted(csv_formula_safe(terminal_safe(s)));
}

std::string format_number(double v) {
  if (!std::isfinite(v)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

void print_aligned(std::ostream& out, const std::vector<std::vector<std::string>>& table,
                   std::size_t left_columns) {
  std::vector<std::size_t> width(table[0].size(), 0);
  for (const auto& row : table)
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  for (std::size_t k = 0; k < table.size(); ++k) {
    std::string line;
    for (std::size_t i = 0; i < table[k].size(); ++i) {
      std::string pad(width[i] - table[k][i].size(), ' ');
      bool left = i < left_columns || i == table[k].size() - 1;
      line += (i ? "  " : "") + (left ? table[k][i] + pad : pad + table[k][i]);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
    if (k == 0) {
      std::size_t total = 0;
      for (auto w : width) total += w + 2;
      out << std::string(total - 2, '-') << "\n";
    }
  }
}

void ConsoleReporter::report(const ReportData& data) {
  out_ << "experiment " << tt(data.experiment);
  if (!data.baseline.empty())
    out_ << " (baseline " << tt(data.baseline) << (data.hosts.empty() ? "" : ", per host") << ")";
  out_ << "\n";
  if (!data.baseline.empty()) out_ << "  " << verdict_method(data) << "\n";
  if (data.context) console_context(out_, *data.context);
  // Several hosts (issue 16): a host column first, rows grouped by host.
  const bool hosts = !data.hosts.empty();
  std::vector<std::vector<std::string>> table = {{"cell", "benchmark", "unit", "n", "median", "min",
                                                  "max", "cv", "penalty [95% CI]", "verdict",
                                                  "noise", "status"}};
  if (hosts) table[0].insert(table[0].begin(), "host");
  for (const auto& r : data.rows) {
    table.push_back({tt(r.cell), tt(r.benchmark), tt(r.unit), std::to_string(r.values.size()),
                     format_number(r.median), format_number(r.min), format_number(r.max),
                     cv_text(r), change_text(r), verdict_text(r, true), noise_column(r),
                     tt(status_text(r))});
    if (hosts) table.back().insert(table.back().begin(), tt(r.host));
  }
  // Text columns (host, cell, benchmark, unit) and the status left-aligned, numbers right.
  print_aligned(out_, table, hosts ? 4 : 3);
  console_telemetry(out_, data);
  console_c2c_classes(out_, data);
  if (data.context) console_cell_context(out_, data);
  for (const auto& r : data.rows) {
    if (r.error.empty()) continue;
    if (r.status == "does-not-fit")  // the planner's reason, not a failure
      out_ << "does not fit: " << tt(row_ref(r)) << ": " << tt(r.error) << "\n";
    else
      out_ << "error in " << tt(row_ref(r)) << ": " << tt(r.error) << "\n";
  }
  for (const auto& line : cap_lines(data)) out_ << tt(line) << "\n";
  for (const auto& w : data.warnings) out_ << "warning: " << tt(w) << "\n";
  for (const auto& i : data.invalid_runs)
    out_ << "invalid stored run " << i.run_id << " (" << tt(i.cell) << " " << tt(i.benchmark)
         << "), left out: " << tt(i.reason) << "\n";
  if (data.context && data.context->experiment.emulated)  // again below a long table
    out_ << "WARNING: " << kTcgWarning << "\n";
}

void CsvReporter::report(const ReportData& data) {
  std::vector<std::string> keys;
  if (!data.rows.empty())
    for (const auto& [k, v] : data.rows.front().factors.items()) keys.push_back(k);
  out_ << "experiment,cell";
  for (const auto& k : keys) out_ << "," << csv_field(k);
  out_ << ",benchmark,unit,n,median,min,max,mean,cv,penalty_pct,ci_low,ci_high,range_low,"
          "range_high,p_value,p_adjusted,verdict,noise,stopped_at_cap,baseline,status,mismatch,"
          "error"
       << csv_context_header(data) << csv_telemetry_header(data) << "\n";
  for (const auto& r : data.rows) {
    out_ << csv_field(data.experiment) << "," << csv_field(r.cell);
    for (const auto& k : keys) {
      const auto& v = r.factors.contains(k) ? r.factors[k] : nlohmann::json();
      // A number level is written as the number; only text can be a formula.
      out_ << "," << (v.is_string() ? csv_field(v.get<std::string>()) : csv_quoted(json_line(v)));
    }
    out_ << "," << csv_field(r.benchmark) << "," << csv_field(r.unit) << "," << r.values.size()
         << "," << format_number(r.median) << "," << format_number(r.min) << ","
         << format_number(r.max) << "," << format_number(r.mean) << "," << format_number(r.cv)
         << "," << (r.penalty ? format_number(*r.penalty) : "-") << csv_difference(r) << ","
         << (r.is_baseline ? "1" : "0") << "," << csv_field(r.status) << ","
         << (r.mismatch ? "1" : "0") << "," << csv_field(r.error)
         << csv_context_values(data, row_ref(r)) << csv_telemetry_values(data, &r) << "\n";
  }
  // Invalid stored runs: one row each, the reason in the error column, no numbers.
  for (const auto& i : data.invalid_runs) {
    out_ << csv_field(data.experiment) << "," << csv_field(i.cell);
    for (std::size_t k = 0; k < keys.size(); ++k) out_ << ",";
    out_ << "," << csv_field(i.benchmark) << ",,0,-,-,-,-,-,-,-,-,-,-,-,-,no_data,,0,0,invalid,0,"
         << csv_field("run " + std::to_string(i.run_id) + ": " + i.reason)
         << csv_context_values(data, i.cell) << csv_telemetry_values(data, nullptr) << "\n";
  }
  csv_c2c_classes(out_, data);
}

nlohmann::json report_to_json(const ReportData& data) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : data.rows) {
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
    rows.push_back(std::move(j));
  }
  nlohmann::json matrices = nlohmann::json::array();
  for (const auto& m : data.matrices) {
    nlohmann::json ns = nlohmann::json::array();
    for (const auto& row : m.ns) {
      nlohmann::json r = nlohmann::json::array();
      for (double v : row) r.push_back(number_or_null(v));
      ns.push_back(r);
    }
    matrices.push_back({{"cell", m.cell},
                        {"cpus", m.cpus},
                        {"ns", ns},
                        {"c2c_classes", c2c_views_json(c2c_views(m))}});
  }
  nlohmann::json invalid = nlohmann::json::array();
  for (const auto& i : data.invalid_runs)
    invalid.push_back(
        {{"run_id", i.run_id}, {"cell", i.cell}, {"benchmark", i.benchmark}, {"reason", i.reason}});
  nlohmann::json out = {{"experiment", data.experiment},
                        {"baseline", data.baseline},
                        {"rows", rows},
                        {"verdicts",
                         {{"alpha", data.verdicts.alpha},
                          {"correction", data.verdicts.correct ? "holm" : "none"},
                          {"tested", data.tested},
                          {"min_runs_per_side", statistics::kMinRunsPerSide},
                          {"method", verdict_method(data)}}},
                        {"latency_matrices", matrices},
                        {"invalid_runs", invalid},
                        {"warnings", data.warnings}};
  if (data.context) out["context"] = context_to_json(*data.context);
  if (!data.hosts.empty()) out["hosts"] = data.hosts;
  return out;
}

// A stored label may hold bytes that are not UTF-8 (an older or hostile build): replaced, never
// thrown (nlohmann's dump() throws on invalid UTF-8 by default).
void JsonReporter::report(const ReportData& data) { out_ << json_document(report_to_json(data)); }

namespace {

template <class R>
std::unique_ptr<Reporter> new_reporter(std::ostream& out) {
  return std::make_unique<R>(out);
}

struct ReporterFormat {
  const char* name;
  std::unique_ptr<Reporter> (*make)(std::ostream&);
};

// Where formats are chosen: one row per format (the CLI reads the names from here).
// clang-format off
constexpr ReporterFormat kReporterFormats[] = {
    {"table", new_reporter<ConsoleReporter>},
    {"csv", new_reporter<CsvReporter>},
    {"json", new_reporter<JsonReporter>},
    {"html", new_reporter<HtmlReporter>},
    {"markdown", new_reporter<MarkdownReporter>},
};
// clang-format on

}  // namespace

const std::vector<std::string>& report_formats() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& f : kReporterFormats) out.emplace_back(f.name);
    return out;
  }();
  return names;
}

std::string report_format_choices() {
  const auto& names = report_formats();
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return out;
}

Result<std::unique_ptr<Reporter>> make_reporter(std::string_view format, std::ostream& out) {
  for (const auto& f : kReporterFormats)
    if (format == f.name) return f.make(out);
  return make_error("--format '" + std::string(format) + "': expected " + report_format_choices());
}

}  // namespace topolab::report
