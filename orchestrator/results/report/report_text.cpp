#include "orchestrator/results/report/report_text.hpp"

#include <algorithm>
#include <cstdio>

#include "orchestrator/base/statistics/descriptive.hpp"

namespace topolab::report {

std::string format_number(double v) {
  if (!std::isfinite(v)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string cv_text(const ReportRow& r) {
  if (!std::isfinite(r.cv)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * r.cv);
  return buf;
}

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

const char* const kCompareMethod =
    "delta = 100 * (median B / median A - 1); 95% CI: Hodges-Lehmann interval of the ratio B/A "
    "on log values (none below 5 runs per side: too_few_runs, the range instead); p: two-sided "
    "Mann-Whitney U test (exact without ties up to 50 runs, else normal approximation with tie "
    "correction), Holm-corrected over the rows unless --no-correction; better/worse when the "
    "adjusted p < alpha";

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

std::string compare_tcg_warning(const CompareData& d) {
  return "WARNING (" + d.emulated_sides() + "): " + kTcgWarning;
}

std::vector<std::tuple<std::string, std::string, std::string>> compare_side_fields(
    const CompareData& d) {
  const ExperimentContext none;
  const auto fa = experiment_fields(d.a.context ? d.a.context->experiment : none);
  const auto fb = experiment_fields(d.b.context ? d.b.context->experiment : none);
  std::vector<std::tuple<std::string, std::string, std::string>> out;
  for (std::size_t i = 0; i < fa.size(); ++i)
    out.emplace_back(fa[i].first, fa[i].second, fb[i].second);
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

}  // namespace topolab::report
