#include "orchestrator/report/telemetry_table.hpp"

#include <cmath>
#include <cstdio>

#include "orchestrator/report/report_text.hpp"
#include "orchestrator/report/svg_util.hpp"
#include "orchestrator/statistics/descriptive.hpp"

namespace topolab::report {

namespace {

// The page's escaping: invalid UTF-8, C1 and bidirectional controls too (issue 32 class 6).
std::string telemetry_markup(const std::string& s) {
  std::string out;
  svg::append_text_escaped(out, s, /*keep_whitespace=*/true);
  return out;
}

// Column titles: the JSON names, shortened where a console row would get too wide.
const char* telemetry_title(const std::string& field) {
  if (field == "ctx_switches_involuntary") return "ctx_invol";
  if (field == "ctx_switches_voluntary") return "ctx_vol";
  if (field == "migrations_cross_l3") return "migr_x_l3";
  if (field == "migrations_cross_package") return "migr_x_pkg";
  if (field == "kernel_migrations") return "kernel_migr";
  if (field == "migrations") return "migr";
  return field == "cpu_user_s" ? "cpu_user_s" : "cpu_sys_s";
}

}  // namespace

std::vector<TelemetryMedian> telemetry_medians(const ReportRow& row) {
  std::vector<TelemetryMedian> out;
  for (const auto& f : protocol::telemetry_fields()) {
    TelemetryMedian m;
    m.field = f.name;
    std::vector<double> values;
    for (const auto& t : row.telemetry) {
      if (auto v = protocol::telemetry_value(t, f.name))
        values.push_back(*v);
      else if (m.omitted.empty() && t.omitted.count(f.name))
        m.omitted = t.omitted.at(f.name);
    }
    m.runs = values.size();
    if (!values.empty()) m.median = statistics::median(values);
    out.push_back(std::move(m));
  }
  return out;
}

bool has_telemetry(const ReportData& data) {
  for (const auto& r : data.rows)
    if (!r.telemetry.empty()) return true;
  return false;
}

std::string telemetry_text(const TelemetryMedian& m) {
  if (!m.median) return "-";
  char text[32];
  const bool seconds = m.field == "cpu_user_s" || m.field == "cpu_sys_s";
  // Seconds from rusage tick in microseconds but are only as good as the clock tick: 3 digits.
  if (seconds)
    std::snprintf(text, sizeof(text), "%.3g", *m.median);
  else if (*m.median == std::floor(*m.median))
    std::snprintf(text, sizeof(text), "%.0f", *m.median);
  else
    std::snprintf(text, sizeof(text), "%.1f", *m.median);  // the median of an even count
  return text;
}

nlohmann::json telemetry_json(const ReportRow& row) {
  if (row.telemetry.empty()) return nullptr;
  nlohmann::json out = {{"runs", row.telemetry.size()}};
  nlohmann::json omitted = nlohmann::json::object();
  for (const auto& m : telemetry_medians(row)) {
    out[m.field] = m.median ? nlohmann::json(*m.median) : nlohmann::json();
    if (!m.median && !m.omitted.empty()) omitted[m.field] = m.omitted;
  }
  out["omitted"] = omitted;
  return out;
}

void console_telemetry(std::ostream& out, const ReportData& data) {
  if (!has_telemetry(data)) return;
  out << "scheduling telemetry (median per run; migr = sampled CPU changes of the benchmark's "
         "threads):\n";
  std::vector<std::string> head = {"cell", "benchmark", "runs"};
  for (const auto& f : protocol::telemetry_fields()) head.push_back(telemetry_title(f.name));
  std::vector<std::vector<std::string>> table = {head};
  for (const auto& r : data.rows) {
    if (r.telemetry.empty()) continue;
    std::vector<std::string> line = {tt(row_ref(r)), tt(r.benchmark),
                                     std::to_string(r.telemetry.size())};
    for (const auto& m : telemetry_medians(r)) line.push_back(telemetry_text(m));
    table.push_back(std::move(line));
  }
  std::vector<std::size_t> width(head.size(), 0);
  for (const auto& line : table)
    for (std::size_t i = 0; i < line.size(); ++i) width[i] = std::max(width[i], line[i].size());
  for (const auto& line : table) {
    for (std::size_t i = 0; i < line.size(); ++i) {
      const std::string pad(width[i] - line[i].size(), ' ');
      out << "  " << (i < 2 ? line[i] + pad : pad + line[i]);
    }
    out << "\n";
  }
}

std::string csv_telemetry_header(const ReportData& data) {
  std::string h;
  if (!has_telemetry(data)) return h;
  for (const auto& f : protocol::telemetry_fields()) h += std::string(",tel_") + f.name;
  return h;
}

std::string csv_telemetry_values(const ReportData& data, const ReportRow* row) {
  std::string v;
  if (!has_telemetry(data)) return v;
  if (row == nullptr || row->telemetry.empty()) {
    for (std::size_t i = 0; i < protocol::telemetry_fields().size(); ++i) v += ",";
    return v;
  }
  for (const auto& m : telemetry_medians(*row)) v += "," + (m.median ? telemetry_text(m) : "");
  return v;
}

void html_telemetry(std::ostream& out, const ReportData& data) {
  if (!has_telemetry(data)) return;
  out << "<h2>Scheduling telemetry</h2>\n<p>Median per run of the guest's counts: CPU seconds "
         "of the agent process, context switches, and migrations of the benchmark's threads "
         "(sampled every "
      << protocol::kTelemetryIntervalMs << " ms; kernel = perf count).</p>\n"
      << "<table><tr><th class=\"t\">cell</th><th class=\"t\">benchmark</th><th>runs</th>";
  for (const auto& f : protocol::telemetry_fields()) out << "<th>" << f.name << "</th>";
  out << "</tr>\n";
  for (const auto& r : data.rows) {
    if (r.telemetry.empty()) continue;
    out << "<tr><td class=\"t\">" << telemetry_markup(row_ref(r)) << "</td><td class=\"t\">"
        << telemetry_markup(r.benchmark) << "</td><td>" << r.telemetry.size() << "</td>";
    for (const auto& m : telemetry_medians(r))
      out << "<td" << (m.omitted.empty() ? "" : " title=\"" + telemetry_markup(m.omitted) + "\"")
          << ">" << telemetry_text(m) << "</td>";
    out << "</tr>\n";
  }
  out << "</table>\n";
}

}  // namespace topolab::report
