#pragma once
// One CSV row per cell and benchmark (or compared row), context and telemetry columns; every stored
// string through csv_field.
#include "orchestrator/results/report/reporter.hpp"

namespace topolab::report {

class CsvReporter : public Reporter {
 public:
  using Reporter::Reporter;
  void report(const ReportData& data) override;
  Result<void> compare(const CompareData& data) override;
};

}  // namespace topolab::report
