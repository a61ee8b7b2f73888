#include "orchestrator/results/report/markdown_reporter.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <vector>

#include "common/terminal_text.hpp"
#include "orchestrator/results/report/context.hpp"
#include "orchestrator/results/report/svg_util.hpp"

namespace topolab::report {
namespace {

// The helpers below have names of their own: a unity batch compiles this file with the other
// reporters (issue 31).
using MdTable = std::vector<std::vector<std::string>>;

// One GFM pipe table: header, delimiter (`---:` for the number columns), body. Every cell is
// either topolab's own text (numbers, verdict words) or went through markdown_text.
void md_table(std::ostream& out, const MdTable& table, const std::vector<bool>& numeric) {
  auto row = [&](const std::vector<std::string>& cells) {
    out << "|";
    for (const auto& c : cells) out << " " << (c.empty() ? "-" : c) << " |";
    out << "\n";
  };
  row(table.front());
  out << "|";
  for (std::size_t i = 0; i < table.front().size(); ++i)
    out << (i < numeric.size() && numeric[i] ? "---:|" : "---|");
  out << "\n";
  for (std::size_t k = 1; k < table.size(); ++k) row(table[k]);
}

// "1 worse, 2 not_significant, 1 too_few_runs": the decided differences, in the verdict table's
// order (docs/reports.md "Verdicts"); "none" without any.
std::string md_verdict_counts(const std::vector<std::string>& verdicts) {
  static const char* const kOrder[] = {"worse",        "better",  "not_significant",
                                       "too_few_runs", "no_data", "units differ"};
  std::map<std::string, int> count;
  for (const auto& v : verdicts) ++count[v];
  std::string out;
  for (const char* name : kOrder)
    if (auto it = count.find(name); it != count.end())
      out += (out.empty() ? "" : ", ") + std::to_string(it->second) + " " + name;
  return out.empty() ? "none" : out;
}

// "backend guest · host_cpu_model AMD EPYC ... · ...": the console's context fields on one line.
std::string md_context_line(const ExperimentContext& x) {
  std::string out;
  for (const auto& [name, value] : experiment_fields(x))
    out += (out.empty() ? "" : " · ") + name + " " + markdown_text(value);
  return out;
}

void md_bullets(std::ostream& out, const std::vector<std::string>& lines) {
  if (lines.empty()) return;
  out << "\n";
  for (const auto& l : lines) out << "- " << l << "\n";
}

}  // namespace

std::string markdown_text(std::string_view text) {
  const std::string safe = terminal_safe(text);
  std::string out;
  out.reserve(safe.size());
  for (char c : safe) {
    switch (c) {
      case '\\':
      case '|':
      case '*':
      case '_':
      case '`':
      case '[':
      case ']':
      case '~':
        out += '\\';
        out += c;
        break;
      default:
        // HTML's specials as entities (a Markdown viewer renders inline HTML): the one markup
        // escaping of the report folder.
        svg::append_markup_escaped(out, c);
    }
  }
  return out;
}

namespace {

// The bold title line with the context, the verdict method and the TCG warning.
void md_report_head(std::ostream& out, const ReportData& data) {
  out << "**Experiment " << markdown_text(data.experiment) << "**";
  if (!data.baseline.empty())
    out << " (baseline " << markdown_text(data.baseline) << (data.hosts.empty() ? "" : ", per host")
        << ")";
  if (data.context) out << " · " << md_context_line(data.context->experiment);
  out << "\n";
  if (!data.baseline.empty()) out << "\n" << verdict_method(data) << "\n";  // topolab's text
  if (data.context && data.context->experiment.emulated)
    out << "\n**WARNING:** " << kTcgWarning << "\n";
}

// The console's columns (issue 16: a host column first in a store of several hosts). Returns
// the verdicts of the decided differences, for the count below the tables.
std::vector<std::string> md_rows_table(std::ostream& out, const ReportData& data) {
  const bool hosts = !data.hosts.empty();
  MdTable table = {{"cell", "benchmark", "unit", "n", "median", "min", "max", "cv",
                    "penalty [95% CI]", "verdict", "noise", "status"}};
  std::vector<bool> numeric = {false, false, false, true, true, true, true, true, true};
  if (hosts) {
    table[0].insert(table[0].begin(), "host");
    numeric.insert(numeric.begin(), false);
  }
  std::vector<std::string> verdicts;
  for (const auto& r : data.rows) {
    const std::string verdict = verdict_text(r, false);
    if (!r.is_baseline && r.difference) verdicts.push_back(verdict);
    table.push_back({markdown_text(r.cell), markdown_text(r.benchmark), markdown_text(r.unit),
                     std::to_string(r.values.size()), format_number(r.median), format_number(r.min),
                     format_number(r.max), cv_text(r), change_text(r), verdict,
                     markdown_text(noise_column(r)),
                     markdown_text(r.status + (r.mismatch ? ",mismatch" : ""))});
    if (hosts) table.back().insert(table.back().begin(), markdown_text(r.host));
  }
  out << "\n";
  md_table(out, table, numeric);
  return verdicts;
}

// Where each cell ran and what its guest saw, as the console prints it.
void md_cell_context_table(std::ostream& out, const ReportData& data) {
  const auto& x = data.context->experiment;
  MdTable cells = {{"cell"}};
  for (const auto& [name, value] : cell_fields(CellContext{})) cells[0].push_back(name);
  for (const auto& [name, value] : condition_fields(x, CellContext{})) cells[0].push_back(name);
  std::vector<std::string> seen;
  for (const auto& r : data.rows) {
    if (std::find(seen.begin(), seen.end(), row_ref(r)) != seen.end()) continue;
    seen.push_back(row_ref(r));
    std::vector<std::string> line = {markdown_text(row_ref(r))};
    const auto& c = cell_context(*data.context, row_ref(r));
    for (const auto& [name, value] : cell_fields(c)) line.push_back(markdown_text(value));
    for (const auto& [name, value] : condition_fields(x, c)) line.push_back(markdown_text(value));
    cells.push_back(std::move(line));
  }
  if (cells.size() == 1) return;
  out << "\n";
  md_table(out, cells, {});
}

// Errors, capped rows, warnings and invalid stored runs, one bullet each.
std::vector<std::string> md_report_notes(const ReportData& data) {
  std::vector<std::string> notes;
  for (const auto& r : data.rows)
    if (!r.error.empty())
      notes.push_back(std::string(r.status == "does-not-fit" ? "does not fit: " : "error in ") +
                      markdown_text(row_ref(r)) + ": " + markdown_text(r.error));
  for (const auto& line : cap_lines(data)) notes.push_back(markdown_text(line));
  for (const auto& w : data.warnings) notes.push_back("warning: " + markdown_text(w));
  for (const auto& i : data.invalid_runs)
    notes.push_back("invalid stored run " + std::to_string(i.run_id) + " (" +
                    markdown_text(i.cell) + " " + markdown_text(i.benchmark) +
                    "), left out: " + markdown_text(i.reason));
  return notes;
}

}  // namespace

void MarkdownReporter::report(const ReportData& data) {
  md_report_head(out_, data);
  const std::vector<std::string> verdicts = md_rows_table(out_, data);
  if (data.context) md_cell_context_table(out_, data);
  out_ << "\n**Verdicts:** " << md_verdict_counts(verdicts);
  if (!data.baseline.empty())
    out_ << " ("
         << (data.verdicts.correct ? "Holm over " + std::to_string(data.tested) + " tested"
                                   : "not corrected")
         << ", alpha " << format_number(data.verdicts.alpha) << ")";
  out_ << "\n";
  md_bullets(out_, md_report_notes(data));
}

Result<void> MarkdownReporter::compare(const CompareData& d) {
  out_ << "**Comparison** A: " << markdown_text(d.a.label) << " · B: " << markdown_text(d.b.label)
       << "\n";
  if (d.emulated()) out_ << "\n**WARNING (" << d.emulated_sides() << "):** " << kTcgWarning << "\n";
  MdTable ctx = {{"context", "A", "B"}};
  for (const auto& [name, a, b] : compare_side_fields(d))
    ctx.push_back({name, markdown_text(a), markdown_text(b)});
  out_ << "\n";
  md_table(out_, ctx, {});
  MdTable table = {{"cell", "benchmark", "unit", "n A", "n B", "median A", "median B", "delta",
                    "95% CI", "p adj", "verdict"}};
  std::vector<std::string> verdicts;
  for (const auto& r : d.rows) {
    verdicts.push_back(r.verdict);
    table.push_back({markdown_text(r.cell), markdown_text(r.benchmark), markdown_text(r.unit),
                     std::to_string(r.a.size()), std::to_string(r.b.size()),
                     format_number(r.median_a), format_number(r.median_b), delta_text(r.delta_pct),
                     interval_or_range(r), p_text(r), verdict_text(r)});  // topolab's words
  }
  out_ << "\n";
  md_table(out_, table, {false, false, false, true, true, true, true, true, true, true});
  out_ << "\n**Verdicts:** " << md_verdict_counts(verdicts) << " ("
       << (d.verdicts.correct ? "Holm over " + std::to_string(d.tested) + " rows" : "not corrected")
       << ", alpha " << format_number(d.alpha) << "; " << markdown_text(kCompareMethod) << ")\n";
  std::vector<std::string> notes;
  for (const auto& k : d.only_a) notes.push_back("only in A: " + markdown_text(k));
  for (const auto& k : d.only_b) notes.push_back("only in B: " + markdown_text(k));
  for (const auto& w : d.warnings) notes.push_back("warning: " + markdown_text(w));
  md_bullets(out_, notes);
  return {};
}

}  // namespace topolab::report
