#pragma once
// The whole report or comparison as one JSON document, values included.
#include <nlohmann/json.hpp>

#include "orchestrator/results/report/reporter.hpp"

namespace topolab::report {

class JsonReporter : public Reporter {
 public:
  using Reporter::Reporter;
  void report(const ReportData& data) override;
  Result<void> compare(const CompareData& data) override;
};

nlohmann::json report_to_json(const ReportData& data);
nlohmann::json compare_to_json(const CompareData& data);

}  // namespace topolab::report
