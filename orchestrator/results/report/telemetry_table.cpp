#include "orchestrator/results/report/telemetry_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "orchestrator/base/statistics/descriptive.hpp"
#include "orchestrator/results/report/report_text.hpp"
#include "orchestrator/results/report/svg_util.hpp"

namespace topolab::report {

namespace {

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

bool has_row_telemetry(const ReportRow& r) {
  return !r.telemetry.empty() || !r.host_telemetry.empty();
}

// The host columns (issue 26 item 2), in print order: JSON name, console title.
constexpr std::pair<const char*, const char*> kHostColumns[] = {
    {"vcpu_host_cpu_changes", "vcpu_chg"}, {"vcpu_host_l3_crossings", "vcpu_x_l3"}};

std::string count_text(std::optional<double> v) {
  TelemetryMedian m;
  m.field = "count";
  m.median = v;
  return telemetry_text(m);
}

std::vector<std::optional<double>> host_values(const HostTelemetrySummary& h) {
  return {h.changes, h.crossings};
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
    if (has_row_telemetry(r)) return true;
  return false;
}

HostTelemetrySummary host_telemetry_summary(const ReportRow& row) {
  HostTelemetrySummary out;
  std::vector<double> changes, crossings;
  struct PerVcpu {
    bool pinned = false;
    std::vector<double> changes, crossings;
    std::map<int, double> share_sum;
  };
  std::map<int, PerVcpu> per;
  for (const auto& t : row.host_telemetry) {
    if (!t.sampled) {
      if (out.not_sampled.empty()) out.not_sampled = t.not_sampled;
      continue;
    }
    ++out.sampled_runs;
    for (const auto& v : t.vcpus) {
      if (v.samples == 0) continue;  // never read: nothing to say about it
      auto& p = per[v.vcpu];
      p.pinned = v.pinned;
      p.changes.push_back(static_cast<double>(v.vcpu_host_cpu_changes));
      p.crossings.push_back(static_cast<double>(v.vcpu_host_l3_crossings));
      changes.push_back(p.changes.back());
      crossings.push_back(p.crossings.back());
      for (const auto& [l3, share] : v.l3_share) p.share_sum[l3] += share;
    }
  }
  if (!changes.empty()) {
    out.changes = statistics::median(changes);
    out.crossings = statistics::median(crossings);
  }
  for (auto& [vcpu, p] : per) {
    HostVcpuSummary v;
    v.vcpu = vcpu;
    v.pinned = p.pinned;
    v.changes = statistics::median(p.changes);
    v.crossings = statistics::median(p.crossings);
    for (const auto& [l3, sum] : p.share_sum)
      v.l3_share[l3] = sum / static_cast<double>(p.changes.size());
    out.vcpus.push_back(std::move(v));
  }
  return out;
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
  if (!has_row_telemetry(row)) return nullptr;
  nlohmann::json out = {{"runs", row.telemetry.size()}};
  nlohmann::json omitted = nlohmann::json::object();
  for (const auto& m : telemetry_medians(row)) {
    out[m.field] = m.median ? nlohmann::json(*m.median) : nlohmann::json();
    if (!m.median && !m.omitted.empty()) omitted[m.field] = m.omitted;
  }
  out["omitted"] = omitted;
  if (row.host_telemetry.empty()) return out;  // an older store: no host keys
  const auto host = host_telemetry_summary(row);
  const auto values = host_values(host);
  for (std::size_t i = 0; i < values.size(); ++i)
    out[kHostColumns[i].first] = values[i] ? nlohmann::json(*values[i]) : nlohmann::json();
  out["host_sampled_runs"] = host.sampled_runs;
  nlohmann::json vcpus = nlohmann::json::array();
  for (const auto& v : host.vcpus) {
    nlohmann::json shares = nlohmann::json::object();
    for (const auto& [l3, share] : v.l3_share) shares[std::to_string(l3)] = share;
    vcpus.push_back({{"vcpu", v.vcpu},
                     {"pinned", v.pinned},
                     {"vcpu_host_cpu_changes", v.changes},
                     {"vcpu_host_l3_crossings", v.crossings},
                     {"l3_share", shares}});
  }
  out["host_vcpus"] = vcpus;
  if (host.sampled_runs == 0) out["host_not_sampled"] = host.not_sampled;
  return out;
}

void console_telemetry(std::ostream& out, const ReportData& data) {
  if (!has_telemetry(data)) return;
  out << "scheduling telemetry (median per run; migr = sampled CPU changes of the benchmark's "
         "threads; vcpu_chg, vcpu_x_l3 = host CPU and host L3 changes per vCPU, sampled on the "
         "host):\n";
  std::vector<std::string> head = {"cell", "benchmark", "runs"};
  for (const auto& f : protocol::telemetry_fields()) head.push_back(telemetry_title(f.name));
  for (const auto& c : kHostColumns) head.push_back(c.second);
  std::vector<std::vector<std::string>> table = {head};
  std::vector<std::string> reasons;  // why a row's vCPUs were not sampled (distinct, first 3)
  for (const auto& r : data.rows) {
    if (!has_row_telemetry(r)) continue;
    std::vector<std::string> line = {tt(row_ref(r)), tt(r.benchmark),
                                     std::to_string(r.telemetry.size())};
    for (const auto& m : telemetry_medians(r)) line.push_back(telemetry_text(m));
    const auto host = host_telemetry_summary(r);
    for (const auto& v : host_values(host)) line.push_back(count_text(v));
    if (host.sampled_runs == 0 && !host.not_sampled.empty() && reasons.size() < 3 &&
        std::find(reasons.begin(), reasons.end(), host.not_sampled) == reasons.end())
      reasons.push_back(host.not_sampled);
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
  for (const auto& why : reasons) out << "  vCPUs not sampled: " << tt(why) << "\n";
}

std::string csv_telemetry_header(const ReportData& data) {
  std::string h;
  if (!has_telemetry(data)) return h;
  for (const auto& f : protocol::telemetry_fields()) h += std::string(",tel_") + f.name;
  for (const auto& c : kHostColumns) h += std::string(",tel_") + c.first;
  return h;
}

std::string csv_telemetry_values(const ReportData& data, const ReportRow* row) {
  std::string v;
  if (!has_telemetry(data)) return v;
  if (row == nullptr || !has_row_telemetry(*row)) {
    for (std::size_t i = 0; i < protocol::telemetry_fields().size() + std::size(kHostColumns); ++i)
      v += ",";
    return v;
  }
  for (const auto& m : telemetry_medians(*row)) v += "," + (m.median ? telemetry_text(m) : "");
  for (const auto& h : host_values(host_telemetry_summary(*row)))
    v += "," + (h ? count_text(h) : "");
  return v;
}

namespace {

// Bounds of the share tables: a worst-case store gives a page of bounded size.
constexpr std::size_t kMaxShareCells = 16, kMaxShareVcpus = 32, kMaxShareL3 = 16;

// Per cell with sampled unpinned vCPUs: a vCPU x host L3 table of the mean share of the run
// each vCPU spent there, the share drawn as a bar behind the percentage.
void html_host_l3_shares(std::ostream& out, const ReportData& data) {
  std::size_t cells = 0, skipped = 0;
  bool headed = false;
  for (const auto& r : data.rows) {
    const auto host = host_telemetry_summary(r);
    std::vector<const HostVcpuSummary*> unpinned;
    std::set<int> l3s;
    for (const auto& v : host.vcpus) {
      if (v.pinned) continue;
      unpinned.push_back(&v);
      for (const auto& [l3, share] : v.l3_share) l3s.insert(l3);
    }
    if (unpinned.empty()) continue;
    if (cells++ >= kMaxShareCells) {
      ++skipped;
      continue;
    }
    if (!headed) {
      out << "<h3>Host L3 share of unpinned vCPUs</h3>\n<p>Per vCPU the mean share of the run it "
             "spent on each host L3 domain (sampled on the host), and its host CPU and L3 "
             "changes per run (median).</p>\n";
      headed = true;
    }
    out << "<table><caption>" << svg::page_text(row_ref(r)) << " &middot; "
        << svg::page_text(r.benchmark) << " (" << host.sampled_runs
        << " runs)</caption><tr><th>vCPU</th>";
    std::size_t shown_l3 = 0;
    for (int l3 : l3s)
      if (shown_l3++ < kMaxShareL3) out << "<th>L3 " << l3 << "</th>";
    out << "<th>changes</th><th>L3 crossings</th></tr>\n";
    for (std::size_t i = 0; i < unpinned.size() && i < kMaxShareVcpus; ++i) {
      const auto& v = *unpinned[i];
      out << "<tr><td>" << v.vcpu << "</td>";
      std::size_t col = 0;
      for (int l3 : l3s) {
        if (col++ >= kMaxShareL3) break;
        const auto it = v.l3_share.find(l3);
        const double pct = it == v.l3_share.end() ? 0.0 : 100.0 * it->second;
        char text[16];
        std::snprintf(text, sizeof(text), "%.0f%%", pct);
        out << "<td style=\"background:linear-gradient(90deg,#9cc3e6 " << text << ",transparent "
            << text << ")\">" << text << "</td>";
      }
      out << "<td>" << count_text(v.changes) << "</td><td>" << count_text(v.crossings)
          << "</td></tr>\n";
    }
    out << "</table>\n";
    if (unpinned.size() > kMaxShareVcpus)
      out << "<p>(" << unpinned.size() - kMaxShareVcpus << " more vCPUs not shown)</p>\n";
    if (l3s.size() > kMaxShareL3)
      out << "<p>(" << l3s.size() - kMaxShareL3 << " more L3 domains not shown)</p>\n";
  }
  if (skipped > 0) out << "<p>(" << skipped << " more cells not shown)</p>\n";
}

}  // namespace

void html_telemetry(std::ostream& out, const ReportData& data) {
  if (!has_telemetry(data)) return;
  out << "<h2>Scheduling telemetry</h2>\n<p>Median per run of the guest's counts: CPU seconds "
         "of the agent process, context switches, and migrations of the benchmark's threads "
         "(sampled every "
      << protocol::kTelemetryIntervalMs << " ms; kernel = perf count).</p>\n"
      << "<table><tr><th class=\"t\">cell</th><th class=\"t\">benchmark</th><th>runs</th>";
  for (const auto& f : protocol::telemetry_fields()) out << "<th>" << f.name << "</th>";
  for (const auto& c : kHostColumns) out << "<th>" << c.first << "</th>";
  out << "</tr>\n";
  for (const auto& r : data.rows) {
    if (!has_row_telemetry(r)) continue;
    out << "<tr><td class=\"t\">" << svg::page_text(row_ref(r)) << "</td><td class=\"t\">"
        << svg::page_text(r.benchmark) << "</td><td>" << r.telemetry.size() << "</td>";
    for (const auto& m : telemetry_medians(r))
      out << "<td" << (m.omitted.empty() ? "" : " title=\"" + svg::page_text(m.omitted) + "\"")
          << ">" << telemetry_text(m) << "</td>";
    const auto host = host_telemetry_summary(r);
    const std::string why =
        host.sampled_runs == 0 && !host.not_sampled.empty()
            ? " title=\"" + svg::page_text("not sampled: " + host.not_sampled) + "\""
            : "";
    for (const auto& v : host_values(host)) out << "<td" << why << ">" << count_text(v) << "</td>";
    out << "</tr>\n";
  }
  out << "</table>\n";
  html_host_l3_shares(out, data);
}

}  // namespace topolab::report
