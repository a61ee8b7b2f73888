#pragma once
// Chart pictures of the HTML report:
//  - scaling charts: when a factor's levels are numbers (threads, size), the benchmark's median
//    against that factor, one line per level combination of the other factors (pin=none vs
//    pin=compact), with a min..max band over the repetitions;
//  - the c2c class summary: a core-to-core latency matrix's pairs grouped by how the guest saw
//    them related (SMT siblings / same L3 / other L3 in the package / other package).
// Everything is capped (charts, series, points) and what is left out is said on the picture.
#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "orchestrator/results/report/report_data.hpp"

namespace topolab::report::svg {

inline constexpr std::size_t kMaxCharts = 8, kMaxSeries = 10, kMaxPoints = 32;

struct ScalingPoint {
  double x = 0, median = 0, min = 0, max = 0;
};
struct ScalingSeries {
  std::string label;  // the other factors' levels, "param.pin=none"; "" when there are none
  std::vector<ScalingPoint> points;  // sorted by x
};
struct ScalingChart {
  std::string benchmark, unit, factor;
  bool lower_is_better = true;
  std::vector<ScalingSeries> series;
  std::size_t series_left_out = 0, points_left_out = 0;
};

// One chart per (benchmark, numeric factor with at least two distinct levels); at most
// kMaxCharts, `charts_left_out` counts the rest.
std::vector<ScalingChart> scaling_charts(const ReportData& data, std::size_t* charts_left_out);
void scaling_svg(std::ostream& o, const ScalingChart& chart);

struct C2cClass {
  std::string name;  // "SMT siblings", "same L3", "other L3, same package", "other package"
  std::size_t pairs = 0;
  double median = 0, min = 0, max = 0;
};
// Classes with at least one measured pair, in the order above ("unknown topology" last).
std::vector<C2cClass> c2c_classes(const LatencyMatrix& m);
void c2c_classes_svg(std::ostream& o, const std::vector<C2cClass>& classes);

}  // namespace topolab::report::svg
