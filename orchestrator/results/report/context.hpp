#pragma once
// Where a report's numbers came from (issue 18): per experiment the host, the accelerator, the
// CPU model given to the guest, versions and date; per cell the intended and the seen topology,
// mismatches and boot retries. Read from the store (untrusted: every value type-checked and
// bounded, "unknown" when absent or unreadable, never thrown on) and printed by every reporter
// through the same ordered field lists, so CSV columns, JSON keys and table labels agree.
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace topolab::store {
class ResultStore;
struct StoredExperiment;
struct StoredCell;
}  // namespace topolab::store

namespace topolab::report {

inline constexpr const char* kUnknown = "unknown";
// Said in every format when any boot of the experiment ran under TCG.
inline constexpr const char* kTcgWarning =
    "emulated (TCG): absolute figures and topology effects are not those of real hardware";

struct ExperimentContext {
  std::string backend = kUnknown;          // guest | host
  std::string host_cpu_model = kUnknown;   // "AMD EPYC 7451 24-Core Processor"
  std::string host_topology = kUnknown;    // "1 package, 1 die, 1 L3, 2 cores, 2 CPUs"
  std::string connect_uri = kUnknown;      // libvirt URI (guest backend)
  std::string accelerator = kUnknown;      // tcg | kvm | host | "kvm, tcg" (boots differed)
  std::string guest_cpu_model = kUnknown;  // "EPYC-Rome (custom)", "host-passthrough", "none"
  std::string topolab_version = kUnknown, agent_version = kUnknown, kernel = kUnknown;
  std::string date = kUnknown;  // "created .. updated" (UTC)
  bool emulated = false;        // some boot ran under TCG: kTcgWarning applies
  bool has_conditions = false;  // the design has os.* settings: a "conditions" column (issue 25)
};

struct CellContext {
  std::string intended = kUnknown;      // topology summary the guest was meant to see
  std::string seen = kUnknown;          // topology summary the guest reported
  std::string mismatches;               // "packages: intended 2, seen 1; ..." ("" when none)
  std::string boot_retries = kUnknown;  // "0", "1" ... ("unknown" for stores before issue 17)
  // The machine of the cell's latest boot: host name and Slurm job (issue 30: a merged store
  // says per cell where it ran); "unknown" for stores before it.
  std::string ran_on = kUnknown;
  // Guest OS settings (issue 25): {NAME: {"requested": V, "seen": [distinct V ...]}} from the
  // cell's runs (environment.conditions); empty without os.* settings. JSON carries it as is;
  // the table, CSV and HTML print it as text through condition_fields().
  nlohmann::json conditions = nlohmann::json::object();
};

struct ReportContext {
  ExperimentContext experiment;
  std::map<std::string, CellContext> cells;  // by cell label
};

// (name, value) in print order; the names are the CSV column and JSON key names.
std::vector<std::pair<std::string, std::string>> experiment_fields(const ExperimentContext&);
std::vector<std::pair<std::string, std::string>> cell_fields(const CellContext&);
// The table's, CSV's and HTML's "conditions" column (issue 25), after cell_fields(): none when
// the experiment has no os.* settings (reports without them are unchanged), else one field
// "os.smt: requested off, seen off; os.sched_autogroup: requested 1, seen 0 | 1" (every
// distinct value the cell's runs read back).
std::vector<std::pair<std::string, std::string>> condition_fields(const ExperimentContext&,
                                                                  const CellContext&);
// The context of a cell by its row_ref (label, "label @ host" in a store of several hosts);
// all "unknown" for one without.
const CellContext& cell_context(const ReportContext&, const std::string& cell);

// hosts: the store's hosts when it has several (issue 16): cells are then keyed by
// "label @ host" and connect_uri / host_topology name every host.
ReportContext load_context(store::ResultStore& store, const store::StoredExperiment& exp,
                           const std::vector<store::StoredCell>& cells,
                           const std::vector<std::string>& hosts = {});

// "2 packages, 2 dies, 4 L3, 8 cores, 16 CPUs" from a topology_to_json object (validated with
// topology_from_json); "unknown" for null, "unreadable: <why>" for anything else.
std::string topology_summary(const nlohmann::json& topology);
// Where the experiment ran, "guest" or "host", as recorded (context, then versions, then the
// spec: older stores); "" when none says.
std::string experiment_backend(const store::StoredExperiment& e);

}  // namespace topolab::report
