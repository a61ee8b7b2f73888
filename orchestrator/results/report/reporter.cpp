#include "orchestrator/results/report/reporter.hpp"

#include "common/terminal_text.hpp"
#include "orchestrator/results/report/console_reporter.hpp"
#include "orchestrator/results/report/csv_reporter.hpp"
#include "orchestrator/results/report/html_reporter.hpp"
#include "orchestrator/results/report/json_reporter.hpp"
#include "orchestrator/results/report/markdown_reporter.hpp"

namespace topolab::report {

Result<void> Reporter::compare(const CompareData&) {
  return make_error(ErrorKind::input, "this format has no comparison of two reports");
}

namespace {

template <class R>
std::unique_ptr<Reporter> new_reporter(std::ostream& out) {
  return std::make_unique<R>(out);
}

struct ReporterFormat {
  const char* name;
  std::unique_ptr<Reporter> (*make)(std::ostream&);
};

// Where formats are registered: one row per format, for a report and a comparison alike (the
// CLI reads the names from here).
// clang-format off
constexpr ReporterFormat kReporterFormats[] = {
    {"table", new_reporter<ConsoleReporter>},
    {"csv", new_reporter<CsvReporter>},
    {"json", new_reporter<JsonReporter>},
    {"html", new_reporter<HtmlReporter>},
    {"markdown", new_reporter<MarkdownReporter>},
};
// clang-format on

}  // namespace

const std::vector<std::string>& report_formats() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& f : kReporterFormats) out.emplace_back(f.name);
    return out;
  }();
  return names;
}

std::string report_format_choices() { return join_choices(report_formats()); }

Result<std::unique_ptr<Reporter>> make_reporter(std::string_view format, std::ostream& out) {
  for (const auto& f : kReporterFormats)
    if (format == f.name) return f.make(out);
  return make_error(ErrorKind::input,
                    "--format '" + std::string(format) + "': expected " + report_format_choices());
}

}  // namespace topolab::report
