#pragma once
// Applies an isolation plan with an undo record and releases it again. The record
// (/var/lib/topolab/isolation/DOMAIN.json under root) is written before the first change, so a
// crash mid-way still leaves everything needed to restore.
#include <filesystem>
#include <string>
#include <vector>

#include "orchestrator/hostprep/isolation/isolation_plan.hpp"

namespace topolab::isolation {

struct ApplyReport {
  std::vector<IsolationAction> done;  // written (apply) or restored (release)
  std::vector<std::string> failures;  // one line each: path, value, error
  std::vector<std::string> notes;
};

// "/var/lib/topolab/isolation/DOMAIN.json" (live path; resolve with SysRoot::at).
std::string undo_record_path(const std::string& domain);
bool has_undo_record(const SysRoot&, const std::string& domain);
Result<IsolationPlan> read_undo_record(const SysRoot&, const std::string& domain);

// A leftover record of the same domain (guest crashed, no release) is released first; the
// values to restore are re-read just before writing. Single
// writes may fail (e.g. IRQs the kernel manages answer EIO): they are reported, not fatal; the
// record then lists only what was changed.
Result<ApplyReport> apply_isolation(const SysRoot&, const IsolationPlan&);

// Restores the record's "before" values in reverse order and removes the record. Writes that
// fail on files that still exist are kept in the record for a later retry. No record: nothing
// to do (an empty report).
Result<ApplyReport> release_isolation(const SysRoot&, const std::string& domain);

nlohmann::json report_to_json(const ApplyReport&);

}  // namespace topolab::isolation
