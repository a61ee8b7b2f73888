#pragma once
// `topolab report --format markdown` (issue 28 item 7): GitHub-flavoured Markdown pipe tables to
// paste into a forum or mailing-list post, like the studies' own tables: a context line
// (experiment, host, accelerator, how verdicts were decided), the per-cell table with the
// console's columns, and the verdicts; of a comparison, the same for both sides. On an injected
// stream like the other formats (reporter.hpp).
#include <string>
#include <string_view>

#include "orchestrator/results/report/reporter.hpp"

namespace topolab::report {

class MarkdownReporter : public Reporter {
 public:
  using Reporter::Reporter;
  void report(const ReportData& data) override;
  Result<void> compare(const CompareData& data) override;
};

// Text from the store (labels, units, context: untrusted) as Markdown inline text or one table
// cell: terminal_safe first (newlines, ESC and other controls become visible "\n", "\x1b"), then
// backslash, `|`, and the emphasis, code, link and strike characters backslash-escaped, and
// `<`, `>`, `&` written as entities, so no string can end a cell, start a row, open HTML or
// format the text around it.
std::string markdown_text(std::string_view text);

}  // namespace topolab::report
