#pragma once
// One self-contained HTML file: inline CSS and SVG, no scripts, no external resources.
#include "orchestrator/results/report/reporter.hpp"

namespace topolab::report {

class HtmlReporter : public Reporter {
 public:
  using Reporter::Reporter;
  void report(const ReportData& data) override;
  Result<void> compare(const CompareData& data) override;
};

}  // namespace topolab::report
