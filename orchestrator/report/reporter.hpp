#pragma once
// Reporters in the google/benchmark style: one base class, one subclass per output format,
// all writing to an injected stream and all reading the same ReportData.
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "orchestrator/report/report_data.hpp"

namespace topolab::report {

class Reporter {
 public:
  explicit Reporter(std::ostream& out) : out_(out) {}
  virtual ~Reporter() = default;
  virtual void report(const ReportData& data) = 0;

 protected:
  std::ostream& out_;
};

class ConsoleReporter : public Reporter {
 public:
  using Reporter::Reporter;
  void report(const ReportData& data) override;
};

class CsvReporter : public Reporter {
 public:
  using Reporter::Reporter;
  void report(const ReportData& data) override;
};

class JsonReporter : public Reporter {
 public:
  using Reporter::Reporter;
  void report(const ReportData& data) override;
};

// One self-contained HTML file: inline CSS and SVG, no scripts, no external resources.
class HtmlReporter : public Reporter {
 public:
  using Reporter::Reporter;
  void report(const ReportData& data) override;
};

// The formats of `topolab report --format`, in the order they are listed: the one list the
// CLI's option check, its help and the errors below read (a new format is one row in
// reporter.cpp, and one in compare_reporter.cpp for comparisons).
const std::vector<std::string>& report_formats();
// "table, csv, json, html or markdown"
std::string report_format_choices();

// One of report_formats().
Result<std::unique_ptr<Reporter>> make_reporter(std::string_view format, std::ostream& out);

// RFC 4180 quoting of a number or fixed word topolab wrote itself.
std::string csv_quoted(const std::string& s);
// Prints a table with columns padded to their widest cell and a rule under the header row: the
// first left_columns columns and the last are left-aligned text, the others right-aligned numbers.
void print_aligned(std::ostream& out, const std::vector<std::vector<std::string>>& table,
                   std::size_t left_columns);
// Text that may come from a guest, a stored row or the experiment file: control characters made
// visible (the CSV goes to stdout, often a terminal), formula prefixes neutralised (OWASP CSV
// injection), then quoted.
std::string csv_field(const std::string& s);

// The change against the baseline as every format prints it (issue 27): "+3.1% [+1.0, +5.2]"
// with an interval, "range -5.7..+33.4%" with too few runs (no interval), "baseline", or "-".
std::string change_text(const ReportRow& r);
// The verdict word ("~" for not_significant when `short_form`), "-" for a row without data.
std::string verdict_text(const ReportRow& r, bool short_form);
// The noise reasons joined with "; ", "-" when not noisy.
std::string noise_column(const ReportRow& r);
// One line per row that stopped at [adaptive] max_repetitions with its target unmet.
std::vector<std::string> cap_lines(const ReportData& data);

// Number formatting shared by the reporters: 4 significant digits, "-" for NaN.
std::string format_number(double v);
nlohmann::json report_to_json(const ReportData& data);

}  // namespace topolab::report
