#include "orchestrator/results/report/telemetry_delta.hpp"

#include <cmath>
#include <cstdio>

#include "orchestrator/results/report/compare.hpp"
#include "orchestrator/results/report/report_text.hpp"
#include "orchestrator/results/report/svg_util.hpp"
#include "orchestrator/results/report/telemetry_table.hpp"

namespace topolab::report {

const char* const kTelemetryDeltaMethod =
    "scheduling telemetry: median per run of each side (n = runs with the field) and delta = B - "
    "A of the medians; no interval, test or verdict";

namespace {

bool is_seconds(const std::string& field) { return field == "cpu_user_s" || field == "cpu_sys_s"; }

// A field worth a line: some run of either side has it.
bool present(const TelemetryDeltaField& f) { return f.runs_a > 0 || f.runs_b > 0; }

// The lines of the table and HTML formats: (cell, benchmark, field, A, B, delta).
std::vector<std::vector<std::string>> delta_lines(const CompareData& data) {
  std::vector<std::vector<std::string>> out;
  for (const auto& r : data.rows) {
    const TelemetryDelta& d = r.telemetry;
    bool any = false;
    for (const auto& f : d.fields) {
      if (!present(f)) continue;
      any = true;
      out.push_back({r.cell, r.benchmark, f.field, telemetry_side_text(d, f, false),
                     telemetry_side_text(d, f, true), telemetry_delta_text(f)});
    }
    if (!any) out.push_back({r.cell, r.benchmark, "-", "not recorded", "not recorded", "-"});
  }
  return out;
}

}  // namespace

std::string TelemetryDelta::not_recorded() const {
  return runs_a == 0 && runs_b == 0 ? "A and B" : runs_a == 0 ? "A" : runs_b == 0 ? "B" : "";
}

TelemetryDelta telemetry_delta(const ReportRow& a, const ReportRow& b) {
  TelemetryDelta d;
  d.runs_a = a.telemetry.size();
  d.runs_b = b.telemetry.size();
  const auto ma = telemetry_medians(a), mb = telemetry_medians(b);  // same fields, same order
  for (std::size_t i = 0; i < ma.size() && i < mb.size(); ++i) {
    TelemetryDeltaField f;
    f.field = ma[i].field;
    f.a = ma[i].median;
    f.b = mb[i].median;
    f.runs_a = ma[i].runs;
    f.runs_b = mb[i].runs;
    if (f.a && f.b) f.delta = *f.b - *f.a;
    d.fields.push_back(std::move(f));
  }
  return d;
}

std::string telemetry_side_text(const TelemetryDelta& d, const TelemetryDeltaField& f,
                                bool side_b) {
  if ((side_b ? d.runs_b : d.runs_a) == 0) return "not recorded";
  const auto& median = side_b ? f.b : f.a;
  if (!median) return "-";
  TelemetryMedian m;
  m.field = f.field;
  m.median = median;
  return telemetry_text(m) + " (n=" + std::to_string(side_b ? f.runs_b : f.runs_a) + ")";
}

std::string telemetry_delta_text(const TelemetryDeltaField& f) {
  if (!f.delta) return "-";
  if (*f.delta == 0) return "0";  // no sign on no change
  char text[32];
  if (is_seconds(f.field))
    std::snprintf(text, sizeof(text), "%+.3g", *f.delta);
  else if (*f.delta == std::floor(*f.delta))
    std::snprintf(text, sizeof(text), "%+.0f", *f.delta);
  else
    std::snprintf(text, sizeof(text), "%+.1f", *f.delta);  // medians of even counts
  return text;
}

bool compare_has_telemetry(const CompareData& data) {
  for (const auto& r : data.rows)
    if (r.telemetry.runs_a > 0 || r.telemetry.runs_b > 0) return true;
  return false;
}

nlohmann::json telemetry_delta_json(const TelemetryDelta& d) {
  auto number = [](const std::optional<double>& v) {
    return v ? number_or_null(*v) : nlohmann::json();
  };
  nlohmann::json fields = nlohmann::json::object();
  for (const auto& f : d.fields)
    fields[f.field] = {{"median_a", number(f.a)},
                       {"median_b", number(f.b)},
                       {"delta", number(f.delta)},
                       {"runs_a", f.runs_a},
                       {"runs_b", f.runs_b}};
  return {{"not_recorded", d.not_recorded()},
          {"runs_a", d.runs_a},
          {"runs_b", d.runs_b},
          {"fields", fields}};
}

void console_telemetry_deltas(std::ostream& out, const CompareData& data) {
  if (!compare_has_telemetry(data)) return;
  out << "\n" << kTelemetryDeltaMethod << ":\n";
  std::vector<std::vector<std::string>> table = {
      {"cell", "benchmark", "field", "A", "B", "delta B-A"}};
  for (auto& line : delta_lines(data)) {
    line[0] = tt(line[0]);
    line[1] = tt(line[1]);
    table.push_back(std::move(line));
  }
  print_aligned(out, table, 3);
}

std::string csv_telemetry_delta_header(const CompareData& data) {
  std::string h;
  if (!compare_has_telemetry(data)) return h;
  h = ",tel_not_recorded,tel_runs_a,tel_runs_b";
  for (const auto& f : protocol::telemetry_fields())
    h += std::string(",tel_a_") + f.name + ",tel_b_" + f.name + ",tel_delta_" + f.name;
  return h;
}

std::string csv_telemetry_delta_values(const CompareData& data, const TelemetryDelta* d) {
  std::string v;
  if (!compare_has_telemetry(data)) return v;
  if (d == nullptr) {
    v = ",,,";
    for (std::size_t i = 0; i < protocol::telemetry_fields().size(); ++i) v += ",,,";
    return v;
  }
  auto number = [](const std::optional<double>& x) { return x ? "," + format_number(*x) : ","; };
  v = "," + d->not_recorded() + "," + std::to_string(d->runs_a) + "," + std::to_string(d->runs_b);
  for (const auto& f : d->fields) v += number(f.a) + number(f.b) + number(f.delta);
  return v;
}

void html_telemetry_deltas(std::ostream& out, const CompareData& data) {
  if (!compare_has_telemetry(data)) return;
  out << "<h2>Scheduling telemetry</h2>\n<p>" << svg::page_text(kTelemetryDeltaMethod) << ".</p>\n"
      << "<table><tr><th class=\"t\">cell</th><th class=\"t\">benchmark</th><th "
         "class=\"t\">field</th><th>A</th><th>B</th><th>delta B-A</th></tr>\n";
  for (const auto& line : delta_lines(data)) {
    out << "<tr>";
    for (std::size_t i = 0; i < line.size(); ++i)
      out << (i < 3 ? "<td class=\"t\">" : "<td>") << svg::page_text(line[i]) << "</td>";
    out << "</tr>\n";
  }
  out << "</table>\n";
}

}  // namespace topolab::report
