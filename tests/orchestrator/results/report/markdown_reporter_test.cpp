// Issue 28 item 7: `topolab report --format markdown`, pipe tables to paste into a forum post.
// A golden of the TCG context store (data/golden_context_tcg.md), the GFM pipe-table grammar
// checked on every table of every output, and hostile labels (`|`, newline, `<script>`, ESC)
// that keep that grammar and come back as their terminal_safe text.
#include "orchestrator/results/report/markdown_reporter.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "common/terminal_text.hpp"
#include "orchestrator/results/report/compare.hpp"
#include "tests/orchestrator/results/report/fixture_store_test.hpp"
#include "tests/support/golden.hpp"

namespace topolab::report {
namespace {

namespace fs = std::filesystem;

const fs::path kData = fs::path(TOPOLAB_TESTS_DIR) / "orchestrator/results/report/data";

std::string render(const ReportData& d) {
  std::ostringstream out;
  auto r = make_reporter("markdown", out);
  if (!r) return "error: " + r.error().message;
  (*r)->report(d);
  return out.str();
}

std::string render(const CompareData& d) {
  std::ostringstream out;
  auto r = make_reporter("markdown", out);
  if (!r) return "error: " + r.error().message;
  if (auto compared = (*r)->compare(d); !compared) return "error: " + compared.error().message;
  return out.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The cells of a pipe-table row, split at unescaped `|` (a backslash escapes the next
// character, as cmark-gfm's row scanner reads it); nullopt when the row does not start and end
// with an unescaped `|`.
std::optional<std::vector<std::string>> row_cells(const std::string& line) {
  if (line.empty() || line.front() != '|') return std::nullopt;
  std::vector<std::string> cells;
  std::string cell;
  bool closed = false;
  for (std::size_t i = 1; i < line.size(); ++i) {
    closed = false;
    if (line[i] == '\\' && i + 1 < line.size()) {
      cell += line[i];
      cell += line[++i];
    } else if (line[i] == '|') {
      cells.push_back(cell);
      cell.clear();
      closed = true;
    } else {
      cell += line[i];
    }
  }
  if (!closed) return std::nullopt;
  return cells;
}

bool is_delimiter_row(const std::vector<std::string>& cells) {
  static const std::regex kDelimiter(R"(\s*:?-+:?\s*)");
  for (const auto& c : cells)
    if (!std::regex_match(c, kDelimiter)) return false;
  return !cells.empty();
}

// Every table: a blank line (or the start) before it, a header row, a delimiter row of as many
// columns, and body rows of as many columns, up to a blank line; no line starting with `|`
// outside a table; no control character anywhere. Returns the problems (empty: the grammar
// holds) and counts the tables.
std::vector<std::string> pipe_table_problems(const std::string& text, int* tables) {
  std::vector<std::string> problems;
  *tables = 0;
  const auto lines = lines_of(text);
  for (unsigned char c : text)
    if ((c < 0x20 && c != '\n') || c == 0x7f)
      problems.push_back("control character " + std::to_string(c) + " in the output");
  for (std::size_t i = 0; i < lines.size();) {
    if (lines[i].empty() || lines[i].front() != '|') {
      ++i;
      continue;
    }
    const std::string where = "line " + std::to_string(i + 1) + " '" + lines[i] + "'";
    const auto header = row_cells(lines[i]);
    const auto delimiter = i + 1 < lines.size() ? row_cells(lines[i + 1]) : std::nullopt;
    if (!header || !delimiter || !is_delimiter_row(*delimiter)) {
      problems.push_back(where + ": a row outside a table (no delimiter row under a header)");
      ++i;
      continue;
    }
    ++*tables;
    if (i > 0 && !lines[i - 1].empty()) problems.push_back(where + ": no blank line before");
    if (delimiter->size() != header->size())
      problems.push_back(where + ": header has " + std::to_string(header->size()) +
                         " columns, delimiter " + std::to_string(delimiter->size()));
    std::size_t k = i + 2;
    for (; k < lines.size() && !lines[k].empty(); ++k) {
      const auto body = row_cells(lines[k]);
      if (!body)
        problems.push_back("line " + std::to_string(k + 1) + " '" + lines[k] +
                           "': a table line that is not a row");
      else if (body->size() != header->size())
        problems.push_back("line " + std::to_string(k + 1) + " '" + lines[k] +
                           "': " + std::to_string(body->size()) + " columns, header " +
                           std::to_string(header->size()));
    }
    i = k;
  }
  return problems;
}

void expect_pipe_tables(const std::string& text, int min_tables) {
  int tables = 0;
  const auto problems = pipe_table_problems(text, &tables);
  for (const auto& p : problems) ADD_FAILURE() << p << "\nin:\n" << text;
  EXPECT_GE(tables, min_tables) << text;
}

// What a Markdown viewer shows for one escaped cell: backslash escapes and the three entities
// undone, surrounding spaces trimmed.
std::string shown(const std::string& cell) {
  std::string out;
  for (std::size_t i = 0; i < cell.size(); ++i) {
    if (cell[i] == '\\' && i + 1 < cell.size()) {
      out += cell[++i];
      continue;
    }
    bool entity = false;
    for (const auto& [name, c] :
         {std::pair<const char*, char>{"&lt;", '<'}, {"&gt;", '>'}, {"&amp;", '&'}})
      if (cell.compare(i, std::string(name).size(), name) == 0) {
        out += c;
        i += std::string(name).size() - 1;
        entity = true;
        break;
      }
    if (!entity) out += cell[i];
  }
  const auto first = out.find_first_not_of(' ');
  if (first == std::string::npos) return "";
  return out.substr(first, out.find_last_not_of(' ') - first + 1);
}

// The body rows (cells) of every table whose header starts with `first_header`.
std::vector<std::vector<std::string>> body_rows(const std::string& text,
                                                const std::string& first_header) {
  std::vector<std::vector<std::string>> out;
  const auto lines = lines_of(text);
  for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
    const auto header = row_cells(lines[i]);
    if (!header || header->empty() || shown((*header)[0]) != first_header) continue;
    for (std::size_t k = i + 2; k < lines.size() && !lines[k].empty(); ++k)
      if (auto row = row_cells(lines[k])) out.push_back(*row);
  }
  return out;
}

class MarkdownReport : public FixtureStoreTest {};

// data/golden_context_tcg.md (tests/support/golden.hpp: scripts/update-goldens.sh).
TEST_F(MarkdownReport, TcgStoreMatchesGolden) {
  build_from(kData / "context_store.sql");
  ::topolab::testing::expect_golden_file(kData / "golden_context_tcg.md", render(load()));
}

TEST_F(MarkdownReport, ContextLineTableAndVerdicts) {
  build_from(kData / "context_store.sql");
  const auto d = load();
  const std::string md = render(d);
  const auto lines = lines_of(md);
  ASSERT_FALSE(lines.empty());
  // The context line: experiment, baseline, host, accelerator; then how verdicts were decided.
  EXPECT_EQ(lines[0].rfind("**Experiment ctx** (baseline expose=flat) · backend guest", 0), 0u)
      << lines[0];
  for (const char* part : {"host_cpu_model AMD EPYC 7451 24-Core Processor", "accelerator tcg",
                           "guest_cpu_model EPYC-Rome (custom)"})
    EXPECT_NE(lines[0].find(part), std::string::npos) << part;
  EXPECT_NE(md.find(verdict_method(d)), std::string::npos);
  EXPECT_NE(md.find(std::string("**WARNING:** ") + kTcgWarning), std::string::npos);
  const auto rows = body_rows(md, "cell");
  ASSERT_GE(rows.size(), 2u);
  // cell, benchmark, unit, n, median, min, max, cv, penalty [95% CI], verdict, noise, status
  EXPECT_EQ(shown(rows[1][0]), "expose=sockets");
  EXPECT_EQ(shown(rows[1][3]), "3");
  EXPECT_EQ(shown(rows[1][4]), "1.12");
  EXPECT_EQ(shown(rows[1][8]), change_text(d.rows[1]));
  EXPECT_EQ(shown(rows[1][9]), "too_few_runs");
  EXPECT_EQ(shown(rows[1][11]), "done,mismatch");
  EXPECT_NE(md.find("**Verdicts:** 1 too_few_runs"), std::string::npos) << md;
}

TEST_F(MarkdownReport, EveryTableKeepsThePipeTableGrammar) {
  build_from(kData / "context_store.sql");
  const auto d = load();
  expect_pipe_tables(render(d), 2);  // the cells' results and their context
  expect_pipe_tables(render(compare_reports(d, d, "A.db", "B.db")), 2);  // context, rows
}

ReportData hostile_report(const std::string& evil) {
  ReportData d;
  d.experiment = evil;
  d.baseline = "expose=flat";
  auto row = [&](const std::string& cell, std::vector<double> v) {
    ReportRow r;
    r.cell = cell;
    r.factors = {{"expose", cell == "expose=flat" ? "flat" : evil}};
    r.benchmark = evil;
    r.unit = evil;
    r.status = "done";
    r.values = std::move(v);
    return r;
  };
  d.rows.push_back(row("expose=flat", {1.0, 1.01, 0.99, 1.02, 0.98}));
  d.rows.push_back(row(evil, {1.2, 1.21, 1.19, 1.22, 1.18}));
  d.rows.back().error = evil;
  compute_statistics(d, {{"expose", "flat"}});
  d.context = ReportContext{};
  d.context->experiment.host_cpu_model = evil;
  d.context->experiment.accelerator = evil;
  d.context->cells[evil].intended = evil;
  d.context->cells[evil].mismatches = evil;
  d.warnings.push_back(evil);
  return d;
}

const std::string kEvil = "a|b\nc <script>alert(1)</script> \x1b[31mred \\| *x* [l](u) `c` &lt;";

TEST(MarkdownHostile, LabelsWithPipesNewlinesMarkupAndEscKeepTheGrammar) {
  const auto d = hostile_report(kEvil);
  const std::string md = render(d);
  expect_pipe_tables(md, 2);
  EXPECT_EQ(md.find('<'), std::string::npos) << "raw '<' reaches the page";
  EXPECT_EQ(md.find('\x1b'), std::string::npos);
  // Each hostile cell is one cell, shown as its terminal_safe text.
  const auto rows = body_rows(md, "cell");
  ASSERT_EQ(rows.size(), 4u);  // two result rows, two context rows
  const std::string safe = terminal_safe(kEvil);
  EXPECT_EQ(shown(rows[1][0]), safe);
  EXPECT_EQ(shown(rows[1][1]), safe);
  EXPECT_EQ(shown(rows[1][2]), safe);
  EXPECT_EQ(shown(rows[3][0]), safe);
  EXPECT_EQ(shown(rows[3][1]), safe);  // intended topology

  CompareData c = compare_reports(d, d, kEvil, kEvil);
  c.only_a.push_back(kEvil);
  const std::string cmp = render(c);
  expect_pipe_tables(cmp, 2);
  EXPECT_EQ(cmp.find('<'), std::string::npos);
  EXPECT_EQ(cmp.find('\x1b'), std::string::npos);
  const auto crows = body_rows(cmp, "cell");
  ASSERT_EQ(crows.size(), 2u);
  EXPECT_EQ(shown(crows[1][0]), safe);
}

TEST(MarkdownHostile, TextEscapesEveryCharacterThatCouldEndACellOrFormat) {
  EXPECT_EQ(markdown_text("expose=flat policy=l3-aligned"), "expose=flat policy=l3-aligned");
  EXPECT_EQ(markdown_text("a|b"), "a\\|b");
  EXPECT_EQ(markdown_text("a\\|b"), "a\\\\\\|b");  // the backslash cannot escape our escape
  EXPECT_EQ(markdown_text("a\nb"), "a\\\\x0ab");   // terminal_safe's "\x0a", backslash escaped
  EXPECT_EQ(markdown_text("\x1b[2J"), "\\\\x1b\\[2J");
  EXPECT_EQ(markdown_text("<script>&"), "&lt;script&gt;&amp;");
  EXPECT_EQ(markdown_text("*_`~[]"), "\\*\\_\\`\\~\\[\\]");
}

}  // namespace
}  // namespace topolab::report
