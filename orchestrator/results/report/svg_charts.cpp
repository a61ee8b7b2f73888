#include "orchestrator/results/report/svg_charts.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>

#include "common/cpu_list.hpp"
#include "orchestrator/results/report/report_text.hpp"
#include "orchestrator/results/report/svg_util.hpp"

namespace topolab::report::svg {
namespace {

constexpr std::size_t kMaxFactorKeys = 16;  // keys of one cell's factors looked at

// A factor level as a number: a JSON number, or a string that is one whole finite number.
std::optional<double> level_number(const nlohmann::json& v) {
  if (v.is_number()) {
    double d = v.get<double>();
    return std::isfinite(d) ? std::optional<double>(d) : std::nullopt;
  }
  if (!v.is_string()) return std::nullopt;
  const auto& s = v.get_ref<const std::string&>();
  if (s.empty() || s.size() > 32) return std::nullopt;
  char* end = nullptr;
  double d = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(d)) return std::nullopt;
  return d;
}

std::string level_text(const nlohmann::json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

// Factor keys whose levels are numbers in every row of the benchmark and take >= 2 values.
std::vector<std::string> numeric_factors(const std::vector<const ReportRow*>& rows) {
  std::map<std::string, std::set<double>> levels;
  std::set<std::string> not_numeric;
  for (const auto* r : rows) {
    if (!r->factors.is_object()) return {};
    std::size_t k = 0;
    for (const auto& [key, v] : r->factors.items()) {
      if (k++ == kMaxFactorKeys) break;
      auto x = level_number(v);
      if (!x)
        not_numeric.insert(key);
      else
        levels[key].insert(*x);
    }
  }
  std::vector<std::string> out;
  for (const auto& [key, xs] : levels)
    if (!not_numeric.count(key) && xs.size() >= 2) out.push_back(key);
  return out;
}

ScalingChart chart_for(const std::vector<const ReportRow*>& rows, const std::string& factor) {
  ScalingChart c;
  c.factor = factor;
  c.benchmark = rows.front()->benchmark;
  c.lower_is_better = rows.front()->lower_is_better;
  std::map<std::string, std::map<double, ScalingPoint>> series;  // label -> x -> point
  for (const auto* r : rows) {
    if (r->values.empty() || !std::isfinite(r->median) || !r->factors.contains(factor)) continue;
    if (c.unit.empty()) c.unit = r->unit;
    auto x = level_number(r->factors[factor]);
    if (!x) continue;
    std::string label;
    std::size_t k = 0;
    for (const auto& [key, v] : r->factors.items()) {
      if (k++ == kMaxFactorKeys) break;
      if (key != factor) label += (label.empty() ? "" : " ") + key + "=" + level_text(v);
    }
    if (!series.count(label) && series.size() == kMaxSeries) {
      ++c.series_left_out;
      continue;
    }
    auto& pts = series[label];
    if (!pts.count(*x) && pts.size() == kMaxPoints) {
      ++c.points_left_out;
      continue;
    }
    pts.emplace(*x, ScalingPoint{*x, r->median, r->min, r->max});
  }
  for (auto& [label, pts] : series) {
    ScalingSeries s{label, {}};
    for (const auto& [x, p] : pts) s.points.push_back(p);
    c.series.push_back(std::move(s));
  }
  return c;
}

}  // namespace

std::vector<ScalingChart> scaling_charts(const ReportData& data, std::size_t* charts_left_out) {
  std::map<int, std::vector<const ReportRow*>> by_bench;
  for (const auto& r : data.rows) by_bench[r.benchmark_index].push_back(&r);
  std::vector<ScalingChart> out;
  std::size_t left_out = 0;
  for (const auto& [idx, rows] : by_bench)
    for (const auto& factor : numeric_factors(rows)) {
      if (out.size() == kMaxCharts) {
        ++left_out;
        continue;
      }
      ScalingChart c = chart_for(rows, factor);
      if (!c.series.empty()) out.push_back(std::move(c));
    }
  if (charts_left_out) *charts_left_out = left_out;
  return out;
}

namespace {

constexpr double kPlotX = 90, kPlotY = 14, kPlotW = 460, kPlotH = 220, kLegendX = 580;

struct Scale {
  double lo = 0, hi = 1;
  bool log = false;
  double at(double v) const {
    if (log) v = std::log2(v);
    return hi > lo ? (v - lo) / (hi - lo) : 0.5;
  }
};

Scale x_scale(const ScalingChart& c) {
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& s : c.series)
    for (const auto& p : s.points) lo = std::min(lo, p.x), hi = std::max(hi, p.x);
  Scale sc;
  // Doubling levels (1, 2, 4 ... 64 threads) spread evenly on a log2 axis.
  sc.log = lo > 0 && hi / lo >= 8;
  sc.lo = sc.log ? std::log2(lo) : lo;
  sc.hi = sc.log ? std::log2(hi) : hi;
  return sc;
}

}  // namespace

namespace {

// Where a chart's values land: x on its Scale, y from 0 to the highest max or median.
struct ScalingPlot {
  Scale xs;
  double top = 0;
  std::set<double> xticks;
  double px(double x) const { return kPlotX + kPlotW * xs.at(x); }
  double py(double y) const { return kPlotY + kPlotH * (1 - std::clamp(y / top, 0.0, 1.0)); }
};

ScalingPlot scaling_plot(const ScalingChart& c) {
  ScalingPlot plot;
  plot.xs = x_scale(c);
  for (const auto& s : c.series)
    for (const auto& p : s.points) {
      if (std::isfinite(p.max)) plot.top = std::max(plot.top, p.max);
      if (std::isfinite(p.median)) plot.top = std::max(plot.top, p.median);
      plot.xticks.insert(p.x);
    }
  if (plot.top <= 0) plot.top = 1;
  return plot;
}

// Axes, y ticks at 0, half and the top; x ticks at each level (at most 16 labelled); the labels.
void scaling_axes(std::ostream& o, const ScalingChart& c, const ScalingPlot& plot) {
  const double top = plot.top;
  o << "<path d=\"M" << num(kPlotX) << " " << num(kPlotY) << " V" << num(kPlotY + kPlotH) << " H"
    << num(kPlotX + kPlotW) << "\" class=\"chax\"/>\n";
  for (double f : {0.0, 0.5, 1.0})
    o << "<text x=\"" << num(kPlotX - 6) << "\" y=\"" << num(plot.py(top * f) + 4)
      << "\" text-anchor=\"end\" class=\"val\">" << esc(format_number(top * f)) << "</text>"
      << "<line x1=\"" << num(kPlotX) << "\" y1=\"" << num(plot.py(top * f)) << "\" x2=\""
      << num(kPlotX + kPlotW) << "\" y2=\"" << num(plot.py(top * f)) << "\" class=\"grid\"/>\n";
  std::size_t n = 0;
  for (double x : plot.xticks)
    if (n++ < 16)
      o << "<text x=\"" << num(plot.px(x)) << "\" y=\"" << num(kPlotY + kPlotH + 16)
        << "\" text-anchor=\"middle\" class=\"val\">" << esc(format_number(x)) << "</text>";
  o << "\n<text x=\"" << num(kPlotX + kPlotW / 2) << "\" y=\"" << num(kPlotY + kPlotH + 34)
    << "\" text-anchor=\"middle\" class=\"lbl\">" << esc(c.factor)
    << (plot.xs.log ? " (log scale)" : "") << "</text><text x=\"14\" y=\""
    << num(kPlotY + kPlotH / 2) << "\" class=\"lbl\" transform=\"rotate(-90 14 "
    << num(kPlotY + kPlotH / 2) << ")\" text-anchor=\"middle\">" << esc(c.unit)
    << (c.lower_is_better ? " (lower" : " (higher") << " is better)</text>\n";
}

// Series i: its min..max band, the median line, a dot per level and its legend row.
void scaling_series(std::ostream& o, const ScalingChart& c, const ScalingPlot& plot,
                    std::size_t i) {
  const auto& s = c.series[i];
  const char* colour = palette(static_cast<int>(i));
  // The band: along the maxima forward, back along the minima.
  std::string band, line;
  for (const auto& p : s.points)
    band += (band.empty() ? "M" : " L") + num(plot.px(p.x)) + " " + num(plot.py(p.max));
  for (auto it = s.points.rbegin(); it != s.points.rend(); ++it)
    band += " L" + num(plot.px(it->x)) + " " + num(plot.py(it->min));
  for (const auto& p : s.points)
    line += (line.empty() ? "M" : " L") + num(plot.px(p.x)) + " " + num(plot.py(p.median));
  o << "<path d=\"" << band << " Z\" fill=\"" << colour << "\" class=\"band\"/>\n<path d=\"" << line
    << "\" stroke=\"" << colour << "\" class=\"line\"/>\n";
  for (const auto& p : s.points)
    o << "<circle cx=\"" << num(plot.px(p.x)) << "\" cy=\"" << num(plot.py(p.median))
      << "\" r=\"3.5\" fill=\"" << colour << "\"><title>" << esc(s.label) << " " << esc(c.factor)
      << "=" << esc(format_number(p.x)) << ": median " << esc(format_number(p.median)) << " ["
      << esc(format_number(p.min)) << ", " << esc(format_number(p.max)) << "] " << esc(c.unit)
      << "</title></circle>";
  const double ly = 24 + 18.0 * static_cast<double>(i);
  o << "\n<rect x=\"" << num(kLegendX) << "\" y=\"" << num(ly - 10)
    << "\" width=\"14\" height=\"12\" fill=\"" << colour << "\"/><text x=\"" << num(kLegendX + 20)
    << "\" y=\"" << num(ly) << "\" class=\"val\">"
    << esc(s.label.empty() ? "(all cells)" : s.label, 48) << "</text>\n";
}

// Below the legend: how many series and points did not fit.
void scaling_left_out_note(std::ostream& o, const ScalingChart& c) {
  if (!c.series_left_out && !c.points_left_out) return;
  std::string note = c.series_left_out ? more_note(c.series_left_out, "series") : "";
  if (c.points_left_out) note += (note.empty() ? "" : " ") + more_note(c.points_left_out, "points");
  o << "<text x=\"" << num(kLegendX) << "\" y=\""
    << num(24 + 18.0 * static_cast<double>(c.series.size())) << "\" class=\"val\">" << esc(note)
    << "</text>\n";
}

}  // namespace

void scaling_svg(std::ostream& o, const ScalingChart& c) {
  const ScalingPlot plot = scaling_plot(c);
  const std::size_t legend_rows = c.series.size() + (c.series_left_out || c.points_left_out);
  const double h = std::max(kPlotY + kPlotH + 44, 24 + 18.0 * static_cast<double>(legend_rows));
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"pic-scaling\" width=\"900\" height=\""
    << num(h, 0) << "\" role=\"img\">\n";
  scaling_axes(o, c, plot);
  for (std::size_t i = 0; i < c.series.size(); ++i) scaling_series(o, c, plot, i);
  scaling_left_out_note(o, c);
  o << "</svg>\n";
}

namespace {

enum PairClass { kSmt, kSameL3, kOtherL3, kOtherPackage, kUnknown, kClassCount };
constexpr const char* kClassNames[kClassCount] = {
    "SMT siblings", "same L3", "other L3, same package", "other package", "unknown topology"};

struct CpuPlace {
  int core = -1, l3 = -1, package = -1;
};

// CPU id -> core, L3, package from the guest-seen topology JSON. Read field by field, like the
// heat map's boundaries: a partial topology (no l3_domains list) still classifies its pairs.
std::map<int, CpuPlace> cpu_places(const nlohmann::json& topo) {
  std::map<int, CpuPlace> out;
  if (!topo.is_object() || !topo.contains("cpus") || !topo["cpus"].is_array()) return out;
  for (const auto& c : topo["cpus"]) {
    if (out.size() == static_cast<std::size_t>(kMaxCpuIds)) break;
    auto get = [&](const char* k) {
      if (!c.contains(k) || !c[k].is_number_integer()) return -1;
      const auto v = c[k].get<std::int64_t>();
      return v >= 0 && v < (1 << 20) ? static_cast<int>(v) : -1;
    };
    if (!c.is_object() || get("id") < 0) continue;
    out[get("id")] = {get("core"), get("l3"), get("package")};
  }
  return out;
}

PairClass classify(const CpuPlace* a, const CpuPlace* b) {
  if (!a || !b) return kUnknown;
  if (a->core >= 0 && a->core == b->core) return kSmt;
  if (a->l3 >= 0 && a->l3 == b->l3) return kSameL3;
  if (a->package < 0 || b->package < 0) return kUnknown;
  return a->package == b->package ? kOtherL3 : kOtherPackage;
}

}  // namespace

std::vector<C2cClass> c2c_classes(const LatencyMatrix& m) {
  const auto places = cpu_places(m.topology);
  auto find = [&](int cpu) {
    auto it = places.find(cpu);
    return it == places.end() ? nullptr : &it->second;
  };
  std::vector<double> values[kClassCount];
  const std::size_t n = std::min(m.ns.size(), m.cpus.size());
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n && j < m.ns[i].size(); ++j) {
      // A pair may be measured in one direction only: take what is there.
      double v = m.ns[i][j];
      if (!std::isfinite(v) && i < m.ns[j].size()) v = m.ns[j][i];
      if (!std::isfinite(v)) continue;
      values[classify(find(m.cpus[i]), find(m.cpus[j]))].push_back(v);
    }
  std::vector<C2cClass> out;
  for (int k = 0; k < kClassCount; ++k) {
    if (values[k].empty()) continue;
    out.push_back({kClassNames[k], values[k].size(), statistics::median(values[k]),
                   statistics::min_of(values[k]), statistics::max_of(values[k])});
  }
  return out;
}

void c2c_classes_svg(std::ostream& o, const std::vector<C2cClass>& classes) {
  const double label_w = 160, bar_w = 200, row_h = 24, top = 24;
  double hi = 0;
  for (const auto& c : classes) hi = std::max(hi, std::isfinite(c.max) ? c.max : 0.0);
  if (hi <= 0) hi = 1;
  const double h = top + row_h * static_cast<double>(std::max<std::size_t>(classes.size(), 1)) + 10;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"pic-c2c-classes\" width=\"640\" height=\""
    << num(h, 0)
    << "\" role=\"img\">\n<text x=\"4\" y=\"14\" class=\"lbl\">median latency by "
       "pair class (bar), min..max (whisker)</text>\n";
  if (classes.empty())
    o << "<text x=\"4\" y=\"" << num(top + 14) << "\" class=\"val\">no measured pairs</text>\n";
  double y = top;
  for (const auto& c : classes) {
    const double cy = y + row_h / 2;
    o << "<text x=\"" << num(label_w - 6) << "\" y=\"" << num(cy + 4)
      << "\" text-anchor=\"end\" class=\"lbl\">" << esc(c.name) << "</text><rect x=\""
      << num(label_w) << "\" y=\"" << num(y + 4) << "\" width=\"" << num(bar_w * c.median / hi)
      << "\" height=\"" << num(row_h - 8) << "\" class=\"bar\"/><path d=\"M"
      << num(label_w + bar_w * c.min / hi) << " " << num(cy) << " H"
      << num(label_w + bar_w * c.max / hi) << "\" class=\"err\"/><text x=\""
      << num(label_w + bar_w + 8) << "\" y=\"" << num(cy + 4) << "\" class=\"val\">"
      << esc(format_number(c.median)) << " ns (" << c.pairs << " pair" << (c.pairs == 1 ? "" : "s")
      << ", " << esc(format_number(c.min)) << ".." << esc(format_number(c.max)) << ")</text>\n";
    y += row_h;
  }
  o << "</svg>\n";
}

}  // namespace topolab::report::svg
