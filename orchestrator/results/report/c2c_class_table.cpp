#include "orchestrator/results/report/c2c_class_table.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <string_view>

#include "host/cpu_pair_class.hpp"
#include "host/topology_json.hpp"
#include "orchestrator/base/statistics/descriptive.hpp"
#include "orchestrator/results/report/report_text.hpp"
#include "orchestrator/results/report/svg_util.hpp"

namespace topolab::report {

namespace {

// vCPU -> its host CPUs, from a run's environment.placement: the agent stores the host's last
// `placement` message there as its `vcpus` list, protocol::placement_to_json's array
// [{"vcpu","host_cpus"}] (an object was expected here before, so no real run had a host view).
// Entries of another shape are skipped: the store is untrusted.
std::map<int, CpuList> vcpu_host_cpus(const nlohmann::json& placement) {
  std::map<int, CpuList> out;
  if (!placement.is_array()) return out;
  for (const auto& v : placement) {
    if (!v.is_object() || !v.contains("vcpu") || !v["vcpu"].is_number_integer() ||
        !v.contains("host_cpus") || !v["host_cpus"].is_string())
      continue;
    auto cpus = CpuList::parse(v["host_cpus"].get<std::string>());
    if (cpus && !cpus->empty()) out[v["vcpu"].get<int>()] = *cpus;
  }
  return out;
}

// The class of two vCPUs by their host CPUs: every pair of their host CPU sets must agree
// (an unpinned vCPU spans many classes: unknown, rather than one guessed).
CpuPairClass host_pair_class(const HostTopology& host, const CpuList& a, const CpuList& b) {
  std::optional<CpuPairClass> agreed;
  for (int x : a)
    for (int y : b) {
      const CpuPairClass c = x == y ? CpuPairClass::kUnknown : classify_cpu_pair(host, x, y);
      if (agreed && *agreed != c) return CpuPairClass::kUnknown;
      agreed = c;
    }
  return agreed.value_or(CpuPairClass::kUnknown);
}

std::vector<C2cClassRow> class_rows(std::map<CpuPairClass, std::vector<double>>& values) {
  std::vector<C2cClassRow> out;
  for (CpuPairClass c : all_pair_classes()) {
    auto& v = values[c];
    if (v.empty()) continue;
    out.push_back({std::string(to_string(c)), v.size(), statistics::min_of(v),
                   statistics::median(v), statistics::max_of(v), statistics::mean(v)});
  }
  return out;
}

double pair_ns(const LatencyMatrix& m, std::size_t i, std::size_t j) {
  double v = j < m.ns[i].size() ? m.ns[i][j] : NAN;
  if (!std::isfinite(v) && i < m.ns[j].size()) v = m.ns[j][i];  // one direction measured
  return v;
}

std::string c2c_ns(double v) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.0f", v);  // ns from a timer: no sub-ns digits
  return text;
}

}  // namespace

C2cViews c2c_views(const LatencyMatrix& m) {
  C2cViews out;
  auto guest = topology_from_json(m.topology);
  auto host = topology_from_json(m.host_topology);
  const auto placed = vcpu_host_cpus(m.placement);
  if (!host)
    out.host_view_missing = "no host topology stored";
  else if (placed.empty() && !m.cpus_are_host_cpus)
    out.host_view_missing = "no vCPU placement stored with the runs";
  std::map<CpuPairClass, std::vector<double>> gv, hv;
  const std::size_t n = std::min(m.ns.size(), m.cpus.size());
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j) {
      const double v = pair_ns(m, i, j);
      if (!std::isfinite(v)) continue;
      const int a = m.cpus[i], b = m.cpus[j];
      gv[guest ? classify_cpu_pair(*guest, a, b) : CpuPairClass::kUnknown].push_back(v);
      if (!out.host_view_missing.empty()) continue;
      if (m.cpus_are_host_cpus) {
        hv[classify_cpu_pair(*host, a, b)].push_back(v);
        continue;
      }
      auto pa = placed.find(a), pb = placed.find(b);  // guest CPU id = vCPU number
      hv[pa == placed.end() || pb == placed.end() ? CpuPairClass::kUnknown
                                                  : host_pair_class(*host, pa->second, pb->second)]
          .push_back(v);
    }
  out.guest_view = class_rows(gv);
  out.host_view = class_rows(hv);
  return out;
}

nlohmann::json c2c_views_json(const C2cViews& v) {
  auto rows = [](const std::vector<C2cClassRow>& rs) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& r : rs)
      a.push_back({{"class", r.name},
                   {"pairs", r.pairs},
                   {"min_ns", r.min_ns},
                   {"median_ns", r.median_ns},
                   {"max_ns", r.max_ns},
                   {"mean_ns", r.mean_ns}});
    return a;
  };
  nlohmann::json out = {{"guest_view", rows(v.guest_view)}, {"host_view", rows(v.host_view)}};
  if (!v.host_view_missing.empty()) out["host_view_missing"] = v.host_view_missing;
  return out;
}

void console_c2c_classes(std::ostream& out, const ReportData& data) {
  for (const auto& m : data.matrices) {
    const C2cViews v = c2c_views(m);
    out << "core-to-core classes of " << tt(m.cell) << " (ns):\n";
    const std::pair<const char*, const std::vector<C2cClassRow>*> views[] = {
        {"guest view", &v.guest_view}, {"host view", &v.host_view}};
    for (const auto& [title, rows] : views) {
      out << "  " << title << (rows->empty() ? ": " + tt(v.host_view_missing) : "") << "\n";
      char line[160];
      for (const auto& r : *rows) {
        std::snprintf(line, sizeof(line),
                      "    %-14s %6zu pairs  %6s-%-6s  average %6s  median %6s\n", r.name.c_str(),
                      r.pairs, c2c_ns(r.min_ns).c_str(), c2c_ns(r.max_ns).c_str(),
                      c2c_ns(r.mean_ns).c_str(), c2c_ns(r.median_ns).c_str());
        out << line;
      }
    }
  }
}

void html_c2c_classes(std::ostream& out, const LatencyMatrix& m) {
  const C2cViews v = c2c_views(m);
  out << "<table><tr><th class=\"t\">view</th><th class=\"t\">class</th><th>pairs</th>"
         "<th>min ns</th><th>median ns</th><th>max ns</th></tr>\n";
  const std::pair<const char*, const std::vector<C2cClassRow>*> views[] = {{"guest", &v.guest_view},
                                                                           {"host", &v.host_view}};
  for (const auto& [title, rows] : views)
    for (const auto& r : *rows)
      out << "<tr><td class=\"t\">" << title << "</td><td class=\"t\">" << r.name << "</td><td>"
          << r.pairs << "</td><td>" << c2c_ns(r.min_ns) << "</td><td>" << c2c_ns(r.median_ns)
          << "</td><td>" << c2c_ns(r.max_ns) << "</td></tr>\n";
  out << "</table>\n";
  if (!v.host_view_missing.empty())
    out << "<p>Host view: " << svg::esc(v.host_view_missing) << "</p>\n";
}

void csv_c2c_classes(std::ostream& out, const ReportData& data) {
  if (data.matrices.empty()) return;
  out << "\nexperiment,cell,view,class,pairs,min_ns,median_ns,max_ns,mean_ns,note\n";
  for (const auto& m : data.matrices) {
    const C2cViews v = c2c_views(m);
    const std::string prefix = csv_field(data.experiment) + "," + csv_field(m.cell) + ",";
    const std::pair<const char*, const std::vector<C2cClassRow>*> views[] = {
        {"guest", &v.guest_view}, {"host", &v.host_view}};
    for (const auto& [view, rows] : views) {
      if (rows->empty()) {
        const std::string why = std::string_view(view) == "host" && !v.host_view_missing.empty()
                                    ? v.host_view_missing
                                    : "no measured pair";
        out << prefix << view << ",,0,,,,," << csv_field(why) << "\n";
        continue;
      }
      for (const auto& r : *rows)
        out << prefix << view << "," << csv_field(r.name) << "," << r.pairs << ","
            << format_number(r.min_ns) << "," << format_number(r.median_ns) << ","
            << format_number(r.max_ns) << "," << format_number(r.mean_ns) << ",\n";
    }
  }
}

}  // namespace topolab::report
