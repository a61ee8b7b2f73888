#pragma once
// Reporters of a comparison (CompareData), one per format on an injected stream, like the
// single-report reporters (google/benchmark style).
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string_view>

#include "common/result.hpp"
#include "orchestrator/report/compare.hpp"

namespace topolab::report {

class CompareReporter {
 public:
  explicit CompareReporter(std::ostream& out) : out_(out) {}
  virtual ~CompareReporter() = default;
  virtual void report(const CompareData& data) = 0;

 protected:
  std::ostream& out_;
};

class ConsoleCompareReporter : public CompareReporter {
 public:
  using CompareReporter::CompareReporter;
  void report(const CompareData& data) override;
};

class CsvCompareReporter : public CompareReporter {
 public:
  using CompareReporter::CompareReporter;
  void report(const CompareData& data) override;
};

class JsonCompareReporter : public CompareReporter {
 public:
  using CompareReporter::CompareReporter;
  void report(const CompareData& data) override;
};

// One self-contained HTML file (html_reporter.cpp): no scripts, no external resources.
class HtmlCompareReporter : public CompareReporter {
 public:
  using CompareReporter::CompareReporter;
  void report(const CompareData& data) override;
};

// One of report_formats() (reporter.hpp).
Result<std::unique_ptr<CompareReporter>> make_compare_reporter(std::string_view format,
                                                               std::ostream& out);

nlohmann::json compare_to_json(const CompareData& data);
// How the numbers of a comparison are computed, in one sentence every format prints.
extern const char* const kCompareMethod;
// "+12.3%" / "[+1.0, +20.5]" / "0.0079": shared by the console and HTML reporters.
std::string delta_text(double pct);
std::string ci_text(const Interval& ci);
std::string interval_or_range(const CompareRow& r);
// The p the verdict was decided from (Holm-adjusted unless --no-correction), "-" untested.
std::string p_text(const CompareRow& r);

}  // namespace topolab::report
