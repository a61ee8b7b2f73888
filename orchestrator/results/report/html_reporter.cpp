// The HTML report: one self-contained file with inline SVG (no scripts, no external files):
// bars per cell with min..max error bars, and each core-to-core latency matrix as a heat map
// with the guest's L3 (dashed) and socket (solid) boundaries drawn.
#include "orchestrator/results/report/html_reporter.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "orchestrator/results/report/c2c_class_table.hpp"
#include "orchestrator/results/report/svg_sections.hpp"
#include "orchestrator/results/report/svg_util.hpp"
#include "orchestrator/results/report/telemetry_table.hpp"

namespace topolab::report {
namespace {

std::string num(double v, int precision = 1) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", precision, v);
  return buf;
}

void bar_chart(std::ostream& o, const std::vector<const ReportRow*>& rows) {
  const double label_w = 300, bar_w = 380, right_w = 210, row_h = 26, top = 10;
  double hi = 0;
  for (const auto* r : rows)
    if (std::isfinite(r->max)) hi = std::max(hi, r->max);
  if (hi <= 0) hi = 1;
  const double width = label_w + bar_w + right_w;
  const double height = top + row_h * static_cast<double>(rows.size()) + 24;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(width, 0) << "\" height=\""
    << num(height, 0) << "\" role=\"img\">\n";
  double y = top;
  for (const auto* r : rows) {
    double cy = y + row_h / 2;
    o << "<text x=\"" << num(label_w - 8, 0) << "\" y=\"" << num(cy + 4)
      << "\" text-anchor=\"end\" class=\"lbl\">" << svg::page_text(row_ref(*r)) << "</text>\n";
    if (std::isfinite(r->median)) {
      double w = bar_w * r->median / hi;
      o << "<rect x=\"" << num(label_w, 0) << "\" y=\"" << num(y + 4) << "\" width=\"" << num(w)
        << "\" height=\"" << num(row_h - 8) << "\" class=\"" << (r->is_baseline ? "base" : "bar")
        << (r->mismatch ? " mism" : "") << "\"><title>median " << format_number(r->median) << " "
        << svg::page_text(r->unit) << "</title></rect>\n";
      double x0 = label_w + bar_w * r->min / hi, x1 = label_w + bar_w * r->max / hi;
      o << "<path d=\"M" << num(x0) << " " << num(cy) << " H" << num(x1) << " M" << num(x0) << " "
        << num(cy - 6) << " V" << num(cy + 6) << " M" << num(x1) << " " << num(cy - 6) << " V"
        << num(cy + 6) << "\" class=\"err\"/>\n";
    }
    std::string right = format_number(r->median) + " " + r->unit;
    if (r->is_baseline)
      right += "  baseline";
    else if (r->difference)
      right += "  " + change_text(*r) + " " + verdict_text(*r, true);
    if (r->mismatch) right += " (mismatch)";
    if (r->values.empty()) right = r->status.empty() ? "no data" : r->status;
    o << "<text x=\"" << num(label_w + bar_w + 8, 0) << "\" y=\"" << num(cy + 4)
      << "\" class=\"val\">" << svg::page_text(right) << "</text>\n";
    y += row_h;
  }
  o << "<line x1=\"" << num(label_w, 0) << "\" y1=\"" << num(top, 0) << "\" x2=\""
    << num(label_w, 0) << "\" y2=\"" << num(y, 0) << "\" class=\"axis\"/>\n";
  o << "<text x=\"" << num(label_w, 0) << "\" y=\"" << num(y + 16) << "\" class=\"val\">0</text>"
    << "<text x=\"" << num(label_w + bar_w, 0) << "\" y=\"" << num(y + 16)
    << "\" text-anchor=\"end\" class=\"val\">" << format_number(hi) << "</text>\n";
  o << "</svg>\n";
}

// CPU id -> (l3, package) from a topology_to_json object; -1 when unknown.
std::map<int, std::pair<int, int>> cpu_domains(const nlohmann::json& topo) {
  std::map<int, std::pair<int, int>> out;
  if (!topo.is_object() || !topo.contains("cpus") || !topo["cpus"].is_array()) return out;
  for (const auto& c : topo["cpus"]) {
    if (!c.is_object() || !c.contains("id") || !c["id"].is_number_integer()) continue;
    auto get = [&](const char* k) {
      return c.contains(k) && c[k].is_number_integer() ? c[k].get<int>() : -1;
    };
    out[c["id"].get<int>()] = {get("l3"), get("package")};
  }
  return out;
}

std::string heat_color(double t) {
  // light yellow (255,255,204) -> red (189,0,38)
  t = std::clamp(t, 0.0, 1.0);
  int r = static_cast<int>(255 + (189 - 255) * t), g = static_cast<int>(255 + (0 - 255) * t),
      b = static_cast<int>(204 + (38 - 204) * t);
  char buf[16];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", r, g, b);
  return buf;
}

void heat_map(std::ostream& o, const LatencyMatrix& m) {
  const std::size_t n = m.ns.size();
  const double cell = std::clamp(480.0 / static_cast<double>(n), 10.0, 44.0), margin = 36;
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& row : m.ns)
    for (double v : row)
      if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  const double side = margin + cell * static_cast<double>(n);
  // Tall enough for the colour legend (11 steps of 20 px) even for a 2x2 matrix.
  const double svg_h = std::max(side, margin + 230) + 10;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(side + 130, 0) << "\" height=\""
    << num(svg_h, 0) << "\" role=\"img\">\n";
  for (std::size_t i = 0; i < n; ++i) {
    double p = margin + cell * static_cast<double>(i) + cell / 2;
    o << "<text x=\"" << num(p) << "\" y=\"" << num(margin - 8)
      << "\" text-anchor=\"middle\" class=\"val\">" << m.cpus[i] << "</text>"
      << "<text x=\"" << num(margin - 6) << "\" y=\"" << num(p + 4)
      << "\" text-anchor=\"end\" class=\"val\">" << m.cpus[i] << "</text>\n";
    for (std::size_t j = 0; j < n; ++j) {
      double v = m.ns[i][j];
      double x = margin + cell * static_cast<double>(j), y = margin + cell * static_cast<double>(i);
      std::string fill =
          std::isfinite(v) ? heat_color(hi > lo ? (v - lo) / (hi - lo) : 0.5) : "#eeeeee";
      o << "<rect x=\"" << num(x) << "\" y=\"" << num(y) << "\" width=\"" << num(cell)
        << "\" height=\"" << num(cell) << "\" fill=\"" << fill << "\"><title>" << m.cpus[i] << " - "
        << m.cpus[j] << ": " << format_number(v) << " ns</title></rect>";
      if (n <= 16 && std::isfinite(v))
        o << "<text x=\"" << num(x + cell / 2) << "\" y=\"" << num(y + cell / 2 + 4)
          << "\" text-anchor=\"middle\" class=\"cellv\">" << num(v, 0) << "</text>";
    }
    o << "\n";
  }
  // Boundaries between consecutive CPUs whose L3 or package differs.
  auto dom = cpu_domains(m.topology);
  for (std::size_t i = 1; i < n; ++i) {
    auto a = dom.find(m.cpus[i - 1]), b = dom.find(m.cpus[i]);
    if (a == dom.end() || b == dom.end()) continue;
    const char* cls = a->second.second != b->second.second ? "sock"
                      : a->second.first != b->second.first ? "l3"
                                                           : nullptr;
    if (!cls) continue;
    double p = margin + cell * static_cast<double>(i);
    o << "<line x1=\"" << num(p) << "\" y1=\"" << num(margin) << "\" x2=\"" << num(p) << "\" y2=\""
      << num(side) << "\" class=\"" << cls << "\"/><line x1=\"" << num(margin) << "\" y1=\""
      << num(p) << "\" x2=\"" << num(side) << "\" y2=\"" << num(p) << "\" class=\"" << cls
      << "\"/>\n";
  }
  o << "<rect x=\"" << num(margin) << "\" y=\"" << num(margin) << "\" width=\""
    << num(side - margin) << "\" height=\"" << num(side - margin) << "\" class=\"frame\"/>\n";
  // Legend: colour scale.
  for (int k = 0; k <= 10; ++k)
    o << "<rect x=\"" << num(side + 20) << "\" y=\"" << num(margin + 20.0 * (10 - k))
      << "\" width=\"16\" height=\"20\" fill=\"" << heat_color(k / 10.0) << "\"/>";
  o << "<text x=\"" << num(side + 40) << "\" y=\"" << num(margin + 14) << "\" class=\"val\">"
    << format_number(hi) << " ns</text><text x=\"" << num(side + 40) << "\" y=\""
    << num(margin + 216) << "\" class=\"val\">" << format_number(lo) << " ns</text>\n";
  o << "</svg>\n";
}

constexpr const char* kStyle = R"CSS(
body{font-family:sans-serif;margin:24px;color:#222}
h1{font-size:20px}h2{font-size:16px;margin-top:28px}
table{border-collapse:collapse;font-size:13px}
td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}
td.t,th.t{text-align:left}
tr.mism td{background:#fff3cd}
.lbl{font-size:12px}.val{font-size:11px;fill:#333}.cellv{font-size:10px;fill:#000}
.bar{fill:#4e79a7}.base{fill:#9c9c9c}.mism{stroke:#e15759;stroke-width:2}
.err{stroke:#111;stroke-width:1.5;fill:none}.axis{stroke:#888}
.l3{stroke:#1f5fbf;stroke-width:2;stroke-dasharray:5 3}.sock{stroke:#000;stroke-width:3.5}
.frame{fill:none;stroke:#000;stroke-width:1}
)CSS";

// --- Context (issue 18): where the numbers came from. Inline styles, so a report without
// context (hand-built data) keeps its stylesheet byte for byte. ---

void html_context(std::ostream& o, const ReportContext& ctx) {
  if (ctx.experiment.emulated)
    o << "<p class=\"tcg\" style=\"background:#fde2e1;border:2px solid #c0392b;padding:8px 12px;"
         "font-weight:bold\">Warning: "
      << svg::page_text(kTcgWarning) << "</p>\n";
  o << "<table class=\"ctx\">\n";
  for (const auto& [name, value] : experiment_fields(ctx.experiment))
    o << "<tr><th class=\"t\">" << svg::page_text(name) << "</th><td class=\"t\">"
      << svg::page_text(value) << "</td></tr>\n";
  o << "</table>\n";
}

void html_cell_context(std::ostream& o, const ReportData& data) {
  o << "<h2>Topology per cell</h2>\n<table><tr><th class=\"t\">cell</th>";
  const auto& x = data.context->experiment;
  for (const auto& [name, value] : cell_fields(CellContext{}))
    o << "<th class=\"t\">" << svg::page_text(name) << "</th>";
  for (const auto& [name, value] : condition_fields(x, CellContext{}))
    o << "<th class=\"t\">" << svg::page_text(name) << "</th>";
  o << "</tr>\n";
  std::vector<std::string> seen;
  for (const auto& r : data.rows) {
    if (std::find(seen.begin(), seen.end(), row_ref(r)) != seen.end()) continue;
    seen.push_back(row_ref(r));
    const auto& c = cell_context(*data.context, row_ref(r));
    o << "<tr" << (c.mismatches.empty() ? "" : " class=\"mism\"") << "><td class=\"t\">"
      << svg::page_text(row_ref(r)) << "</td>";
    for (const auto& [name, value] : cell_fields(c))
      o << "<td class=\"t\">" << (value.empty() ? "-" : svg::page_text(value)) << "</td>";
    for (const auto& [name, value] : condition_fields(x, c))
      o << "<td class=\"t\">" << (value.empty() ? "-" : svg::page_text(value)) << "</td>";
    o << "</tr>\n";
  }
  o << "</table>\n";
}

// The page's head and title, the context and how penalties and verdicts were decided.
void html_report_head(std::ostream& o, const ReportData& data) {
  o << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>topolab: "
    << svg::page_text(data.experiment) << "</title><style>" << kStyle << svg::kPictureStyle
    << "</style></head><body>\n";
  o << "<h1>topolab experiment " << svg::page_text(data.experiment) << "</h1>\n";
  if (data.context) html_context(o, *data.context);
  if (!data.baseline.empty())
    o << "<p>Penalty is 100&middot;(median/baseline &minus; 1) against <b>"
      << svg::page_text(data.baseline) << "</b>. " << svg::page_text(verdict_method(data))
      << ". Error bars span min..max of the repetitions.</p>\n";
  if (const auto caps = cap_lines(data); !caps.empty()) {
    o << "<ul>\n";
    for (const auto& line : caps) o << "<li>" << svg::page_text(line) << "</li>\n";
    o << "</ul>\n";
  }
}

// One bar chart per benchmark, in the benchmarks' order.
void html_bar_charts(std::ostream& o, const ReportData& data) {
  std::map<int, std::vector<const ReportRow*>> by_bench;
  for (const auto& r : data.rows) by_bench[r.benchmark_index].push_back(&r);
  for (const auto& [idx, rows] : by_bench) {
    o << "<h2>" << svg::page_text(rows.front()->benchmark) << " ("
      << svg::page_text(rows.front()->unit) << ", "
      << (rows.front()->lower_is_better ? "lower" : "higher") << " is better)</h2>\n";
    bar_chart(o, rows);
  }
}

void html_rows_table(std::ostream& o, const ReportData& data) {
  const bool hosts = !data.hosts.empty();  // issue 16: a host column first
  o << "<h2>Table</h2>\n<table><tr>" << (hosts ? "<th class=\"t\">host</th>" : "")
    << "<th class=\"t\">cell</th><th class=\"t\">benchmark</th>"
       "<th>n</th><th>median</th><th>min</th><th>max</th><th>cv</th><th>penalty [95% CI]</th>"
       "<th class=\"t\">verdict</th><th class=\"t\">noise</th><th class=\"t\">status</th>"
       "</tr>\n";
  for (const auto& r : data.rows) {
    o << "<tr" << (r.mismatch ? " class=\"mism\"" : "") << ">"
      << (hosts ? "<td class=\"t\">" + svg::page_text(r.host) + "</td>" : "") << "<td class=\"t\">"
      << svg::page_text(r.cell) << "</td><td class=\"t\">" << svg::page_text(r.benchmark)
      << "</td><td>" << r.values.size() << "</td><td>" << format_number(r.median) << "</td><td>"
      << format_number(r.min) << "</td><td>" << format_number(r.max) << "</td><td>" << cv_text(r)
      << "</td><td>" << svg::page_text(change_text(r)) << "</td><td class=\"t\">"
      << svg::page_text(verdict_text(r, false)) << "</td><td class=\"t\">"
      << svg::page_text(noise_column(r)) << "</td><td class=\"t\">" << svg::page_text(r.status)
      << (r.stopped_at_cap ? ", stopped at max_repetitions" : "")
      << (r.mismatch ? ", topology mismatch" : "")
      << (r.error.empty() ? "" : ": " + svg::page_text(r.error)) << "</td></tr>\n";
  }
  o << "</table>\n";
}

void html_invalid_runs(std::ostream& o, const ReportData& data) {
  if (data.invalid_runs.empty()) return;
  o << "<h2>Invalid stored runs (left out)</h2>\n<ul>\n";
  for (const auto& i : data.invalid_runs)
    o << "<li>run " << i.run_id << " (" << svg::page_text(i.cell) << " "
      << svg::page_text(i.benchmark) << "): " << svg::page_text(i.reason) << "</li>\n";
  o << "</ul>\n";
}

void html_latency_matrices(std::ostream& o, const ReportData& data) {
  for (const auto& m : data.matrices) {
    o << "<h2>Core-to-core latency: " << svg::page_text(m.cell)
      << "</h2>\n<p>Guest CPU ids; dashed blue lines: L3 boundaries, solid black: sockets "
         "(from the guest-seen topology).</p>\n";
    svg::write_c2c_with_classes(o, m, heat_map);
    html_c2c_classes(o, m);
  }
}

}  // namespace

void HtmlReporter::report(const ReportData& data) {
  html_report_head(out_, data);
  html_bar_charts(out_, data);
  svg::write_scaling_section(out_, data);
  html_rows_table(out_, data);
  html_telemetry(out_, data);
  if (data.context) html_cell_context(out_, data);
  html_invalid_runs(out_, data);
  svg::write_topology_sections(out_, data);
  html_latency_matrices(out_, data);
  out_ << "</body></html>\n";
}

// --- Comparison of two reports (issue 18): a side-by-side table, context of both sides ---

Result<void> HtmlReporter::compare(const CompareData& d) {
  auto& o = out_;
  o << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>topolab: "
    << svg::page_text(d.a.label) << " vs " << svg::page_text(d.b.label) << "</title><style>"
    << kStyle << "</style></head><body>\n<h1>topolab comparison</h1>\n<p>A: <b>"
    << svg::page_text(d.a.label) << "</b><br>B: <b>" << svg::page_text(d.b.label) << "</b></p>\n";
  if (d.emulated())
    o << "<p class=\"tcg\" style=\"background:#fde2e1;border:2px solid #c0392b;padding:8px 12px;"
         "font-weight:bold\">Warning ("
      << d.emulated_sides() << "): " << svg::page_text(kTcgWarning) << "</p>\n";
  o << "<table class=\"ctx\"><tr><th class=\"t\">context</th><th class=\"t\">A</th>"
       "<th class=\"t\">B</th></tr>\n";
  for (const auto& [name, a, b] : compare_side_fields(d))
    o << "<tr><th class=\"t\">" << svg::page_text(name) << "</th><td class=\"t\">"
      << svg::page_text(a) << "</td><td class=\"t\">" << svg::page_text(b) << "</td></tr>\n";
  o << "</table>\n<h2>Results</h2>\n<table><tr><th class=\"t\">cell</th><th "
       "class=\"t\">benchmark</th><th class=\"t\">unit</th><th>n A</th><th>n B</th><th>median "
       "A</th><th>median B</th><th>delta</th><th>95% CI</th><th>p adj</th><th "
       "class=\"t\">verdict</th></tr>\n";
  for (const auto& r : d.rows)
    o << "<tr" << (r.verdict == "better" || r.verdict == "worse" ? " class=\"mism\"" : "")
      << "><td class=\"t\">" << svg::page_text(r.cell) << "</td><td class=\"t\">"
      << svg::page_text(r.benchmark) << "</td><td class=\"t\">" << svg::page_text(r.unit)
      << "</td><td>" << r.a.size() << "</td><td>" << r.b.size() << "</td><td>"
      << format_number(r.median_a) << "</td><td>" << format_number(r.median_b) << "</td><td>"
      << delta_text(r.delta_pct) << "</td><td>" << interval_or_range(r) << "</td><td>" << p_text(r)
      << "</td><td class=\"t\">" << svg::page_text(verdict_text(r)) << "</td></tr>\n";
  o << "</table>\n";
  html_telemetry_deltas(o, d);
  for (const auto& [side, keys] : {std::pair{"A", &d.only_a}, std::pair{"B", &d.only_b}}) {
    if (keys->empty()) continue;
    o << "<h2>Only in " << side << "</h2>\n<ul>\n";
    for (const auto& k : *keys) o << "<li>" << svg::page_text(k) << "</li>\n";
    o << "</ul>\n";
  }
  if (!d.warnings.empty()) {
    o << "<h2>Warnings</h2>\n<ul>\n";
    for (const auto& w : d.warnings) o << "<li>" << svg::page_text(w) << "</li>\n";
    o << "</ul>\n";
  }
  o << "<p>" << svg::page_text(kCompareMethod) << " = " << format_number(d.alpha)
    << ".</p>\n</body></html>\n";
  return {};
}

}  // namespace topolab::report
