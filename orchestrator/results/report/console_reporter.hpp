#pragma once
// Aligned text for a terminal (--format table): every text cell through terminal_safe.
#include "orchestrator/results/report/reporter.hpp"

namespace topolab::report {

class ConsoleReporter : public Reporter {
 public:
  using Reporter::Reporter;
  void report(const ReportData& data) override;
  Result<void> compare(const CompareData& data) override;
};

}  // namespace topolab::report
