#include "orchestrator/results/report/console_reporter.hpp"

#include <algorithm>

#include "orchestrator/results/report/c2c_class_table.hpp"
#include "orchestrator/results/report/telemetry_table.hpp"

namespace topolab::report {
namespace {

std::string status_text(const ReportRow& r) {
  std::string s = r.status;
  if (r.mismatch) s += ",mismatch";
  return s;
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

// The per-row table; several hosts (issue 16): a host column first, rows grouped by host.
void console_rows(std::ostream& out, const ReportData& data) {
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
  print_aligned(out, table, hosts ? 4 : 3);
}

// Errors, capped rows, warnings and invalid stored runs below the tables.
void console_report_notes(std::ostream& out, const ReportData& data) {
  for (const auto& r : data.rows) {
    if (r.error.empty()) continue;
    if (r.status == "does-not-fit")  // the planner's reason, not a failure
      out << "does not fit: " << tt(row_ref(r)) << ": " << tt(r.error) << "\n";
    else
      out << "error in " << tt(row_ref(r)) << ": " << tt(r.error) << "\n";
  }
  for (const auto& line : cap_lines(data)) out << tt(line) << "\n";
  for (const auto& w : data.warnings) out << "warning: " << tt(w) << "\n";
  for (const auto& i : data.invalid_runs)
    out << "invalid stored run " << i.run_id << " (" << tt(i.cell) << " " << tt(i.benchmark)
        << "), left out: " << tt(i.reason) << "\n";
}

}  // namespace

void ConsoleReporter::report(const ReportData& data) {
  out_ << "experiment " << tt(data.experiment);
  if (!data.baseline.empty())
    out_ << " (baseline " << tt(data.baseline) << (data.hosts.empty() ? "" : ", per host") << ")";
  out_ << "\n";
  if (!data.baseline.empty()) out_ << "  " << verdict_method(data) << "\n";
  if (data.context) console_context(out_, *data.context);
  console_rows(out_, data);
  console_telemetry(out_, data);
  console_c2c_classes(out_, data);
  if (data.context) console_cell_context(out_, data);
  console_report_notes(out_, data);
  if (data.context && data.context->experiment.emulated)  // again below a long table
    out_ << "WARNING: " << kTcgWarning << "\n";
}

Result<void> ConsoleReporter::compare(const CompareData& d) {
  out_ << "compare A: " << tt(d.a.label) << "\n        B: " << tt(d.b.label) << "\n";
  if (d.emulated()) out_ << compare_tcg_warning(d) << "\n";
  std::vector<std::vector<std::string>> ctx = {{"context", "A", "B"}};
  for (const auto& [name, a, b] : compare_side_fields(d)) ctx.push_back({name, tt(a), tt(b)});
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
  if (d.emulated()) out_ << compare_tcg_warning(d) << "\n";
  return {};
}

}  // namespace topolab::report
