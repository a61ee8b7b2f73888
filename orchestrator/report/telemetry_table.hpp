#pragma once
// How a cell's runs were scheduled (issue 26): per report row the median over its runs of each
// telemetry field (protocol/run_telemetry.hpp), for every format. One place decides which
// fields exist and how they print; each reporter calls one function here.
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "orchestrator/report/report_data.hpp"

namespace topolab::report {

struct TelemetryMedian {
  std::string field;             // protocol::telemetry_fields() name
  std::optional<double> median;  // over the runs that have the field
  std::size_t runs = 0;          // runs that have it
  std::string omitted;           // the first run's reason when no run has it
};
std::vector<TelemetryMedian> telemetry_medians(const ReportRow& row);
bool has_telemetry(const ReportData& data);

// "0.852" (seconds, 3 significant digits), "12" or "12.5" (a median of counts), "-".
std::string telemetry_text(const TelemetryMedian& m);

// JSON `telemetry` of a row: {"runs": N, "cpu_user_s": median|null, ..., "omitted": {..}};
// null when no run of the row carries telemetry (older agent or store: the JSON reporter then
// leaves the key out).
nlohmann::json telemetry_json(const ReportRow& row);

// The table format's "scheduling telemetry" table (nothing when no row has telemetry).
void console_telemetry(std::ostream& out, const ReportData& data);
// CSV: ",tel_cpu_user_s,..." header and a row's values ("" where absent); both empty when no
// row of the report has telemetry (a store of older agents keeps its columns).
std::string csv_telemetry_header(const ReportData& data);
std::string csv_telemetry_values(const ReportData& data, const ReportRow* row);
// HTML: a table beside the results table (migrations included); every text escaped.
void html_telemetry(std::ostream& out, const ReportData& data);

}  // namespace topolab::report
