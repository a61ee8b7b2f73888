#pragma once
// Core-to-core latency per class in two views (issue 26): the guest view classifies each
// measured pair by the guest-seen topology (what the guest was told), the host view by the host
// CPUs behind the two vCPUs (the run's environment.placement and the experiment's host
// topology: where the vCPUs really were). Classes: host/cpu_pair_class.hpp. For the host backend
// the guest is the host, so both views are the host's.
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "orchestrator/results/report/report_data.hpp"

namespace topolab::report {

struct C2cClassRow {
  std::string name;  // "smt" ... "other_package", "unknown"
  std::size_t pairs = 0;
  double min_ns = 0, median_ns = 0, max_ns = 0;
  double mean_ns = 0;  // the studies' "average" column
};

struct C2cViews {
  std::vector<C2cClassRow> guest_view;
  std::vector<C2cClassRow> host_view;
  std::string host_view_missing;  // why the host view is empty ("" when it is computed)
};

// Every measured pair of m into its class, per view; classes without a pair are left out.
C2cViews c2c_views(const LatencyMatrix& m);

// JSON `c2c_classes`: {"guest_view": [{"class","pairs","min_ns","median_ns","max_ns","mean_ns"}],
// "host_view": [...], "host_view_missing": "..." (only when empty)}.
nlohmann::json c2c_views_json(const C2cViews& v);
// The table format, shaped like the studies' tables: per view "class  pairs  min-max  average
// median" in ns.
void console_c2c_classes(std::ostream& out, const ReportData& data);
void html_c2c_classes(std::ostream& out, const LatencyMatrix& m);
// CSV: after the cells' rows, a blank line and a second table with its own header,
// "experiment,cell,view,class,pairs,min_ns,median_ns,max_ns,mean_ns,note": one row per (matrix,
// view, class); a view without classes gets one row with empty numbers and the reason in `note`.
// Nothing when the report has no matrix (the CSV of a store without c2c runs is unchanged).
void csv_c2c_classes(std::ostream& out, const ReportData& data);

}  // namespace topolab::report
