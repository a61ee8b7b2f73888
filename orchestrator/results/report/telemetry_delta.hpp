#pragma once
// Scheduling telemetry in comparisons (issue 26 item 4): per compared (cell, benchmark) pair, for
// each telemetry field, the median per run of each side (telemetry_medians: the numbers the
// single-store report prints) and their difference B - A, with the runs behind each median.
// Only a delta of medians: no interval, no test, no verdict (the benchmark's verdict is decided on
// its own values; these counts are context for it, and a handful of runs per side does not carry a
// claim about them). A side whose runs carry no telemetry (an agent or store before issue 26)
// reads "not recorded". One place decides the numbers and how each format prints them.
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "orchestrator/results/report/report_data.hpp"

namespace topolab::report {

struct CompareData;

struct TelemetryDeltaField {
  std::string field;                   // protocol::telemetry_fields() name
  std::optional<double> a, b;          // median per run of each side, where a run has the field
  std::size_t runs_a = 0, runs_b = 0;  // runs of each side that have the field
  std::optional<double> delta;         // b - a, when both sides have the field
};

struct TelemetryDelta {
  std::size_t runs_a = 0, runs_b = 0;       // runs of each side that carry telemetry at all
  std::vector<TelemetryDeltaField> fields;  // every telemetry field, in print order
  // The side(s) without telemetry: "A", "B", "A and B" or "" (the topology_mismatch convention).
  std::string not_recorded() const;
};

TelemetryDelta telemetry_delta(const ReportRow& a, const ReportRow& b);

// The sentence every format prints with the telemetry of a comparison.
extern const char* const kTelemetryDeltaMethod;
// "0.852 (n=3)" / "12 (n=3)", or "not recorded" (side without telemetry) / "-" (field absent).
std::string telemetry_side_text(const TelemetryDelta& d, const TelemetryDeltaField& f, bool side_b);
// "+0.12" (seconds, 3 significant digits), "+3" or "-2.5" (counts), "-" without both sides.
std::string telemetry_delta_text(const TelemetryDeltaField& f);

// Whether any compared row has telemetry on either side; without, no format adds anything (a
// comparison of older stores reads as before).
bool compare_has_telemetry(const CompareData& data);
// JSON of one row: {"not_recorded": "B", "runs_a": 3, "runs_b": 0, "fields": {"migrations":
// {"median_a": 12|null, "median_b": null, "delta": null, "runs_a": 3, "runs_b": 0}, ...}}.
nlohmann::json telemetry_delta_json(const TelemetryDelta& d);
// Table format: a "scheduling telemetry" block, one line per (row, field present on a side).
void console_telemetry_deltas(std::ostream& out, const CompareData& data);
// CSV: ",tel_not_recorded,tel_runs_a,tel_runs_b,tel_a_<f>,tel_b_<f>,tel_delta_<f>..." and a
// row's values (nullptr: a one-sided row, empty values); both "" without telemetry.
std::string csv_telemetry_delta_header(const CompareData& data);
std::string csv_telemetry_delta_values(const CompareData& data, const TelemetryDelta* d);
// HTML: a "Scheduling telemetry" table (fixed words and numbers, labels escaped).
void html_telemetry_deltas(std::ostream& out, const CompareData& data);

}  // namespace topolab::report
