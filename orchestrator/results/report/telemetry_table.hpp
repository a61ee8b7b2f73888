#pragma once
// How a cell's runs were scheduled (issue 26): per report row the median over its runs of each
// telemetry field (protocol/run_telemetry.hpp), for every format. One place decides which
// fields exist and how they print; each reporter calls one function here.
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "orchestrator/results/report/report_data.hpp"

namespace topolab::report {

struct TelemetryMedian {
  std::string field;             // protocol::telemetry_fields() name
  std::optional<double> median;  // over the runs that have the field
  std::size_t runs = 0;          // runs that have it
  std::string omitted;           // the first run's reason when no run has it
};
std::vector<TelemetryMedian> telemetry_medians(const ReportRow& row);
// Guest or host telemetry in any row.
bool has_telemetry(const ReportData& data);

// Where a row's vCPUs ran on the host (issue 26 item 2), over its sampled runs: per vCPU the
// median over runs of its host-CPU changes and host-L3 crossings and its mean share per host
// L3; for the row the median per vCPU (over every run x vCPU) of both counts.
struct HostVcpuSummary {
  int vcpu = -1;
  bool pinned = false;
  double changes = 0, crossings = 0;
  std::map<int, double> l3_share;  // host L3 index -> mean share over the runs
};
struct HostTelemetrySummary {
  std::size_t sampled_runs = 0;
  std::string not_sampled;  // the first run's reason when no run was sampled
  std::optional<double> changes, crossings;
  std::vector<HostVcpuSummary> vcpus;
};
HostTelemetrySummary host_telemetry_summary(const ReportRow& row);

// "0.852" (seconds, 3 significant digits), "12" or "12.5" (a median of counts), "-".
std::string telemetry_text(const TelemetryMedian& m);

// JSON `telemetry` of a row: {"runs": N, "cpu_user_s": median|null, ..., "omitted": {..},
// "vcpu_host_cpu_changes": median per vCPU|null, "vcpu_host_l3_crossings": ..,
// "host_sampled_runs": N, "host_vcpus": [{"vcpu", "pinned", "vcpu_host_cpu_changes",
// "vcpu_host_l3_crossings", "l3_share": {"0": share}}], "host_not_sampled": reason (when none)};
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
