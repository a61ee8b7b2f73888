#pragma once
// Reporters in the google/benchmark style: one class per output format, writing to an injected
// stream, that renders both the report of one store (ReportData) and the comparison of two
// (CompareData). The formats are the rows of one registration table (reporter.cpp), which
// report_formats(), the CLI's --format check and help, and both `topolab report` commands read:
// a new format is one <format>_reporter.cpp (+ .hpp) and one row there.
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "orchestrator/results/report/compare.hpp"
#include "orchestrator/results/report/report_data.hpp"
#include "orchestrator/results/report/report_text.hpp"

namespace topolab::report {

class Reporter {
 public:
  explicit Reporter(std::ostream& out) : out_(out) {}
  virtual ~Reporter() = default;
  virtual void report(const ReportData& data) = 0;
  // B against A. A format without a comparison keeps this one: an input error, nothing written.
  virtual Result<void> compare(const CompareData& data);

 protected:
  std::ostream& out_;
};

// The formats of `topolab report --format`, in the order they are listed (the registration
// table's rows).
const std::vector<std::string>& report_formats();
// "table, csv, json, html or markdown"
std::string report_format_choices();

// The reporter of one of report_formats(); any other name is an input error.
Result<std::unique_ptr<Reporter>> make_reporter(std::string_view format, std::ostream& out);

}  // namespace topolab::report
