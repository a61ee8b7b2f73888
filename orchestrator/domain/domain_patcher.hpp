#pragma once
// `topolab apply`: rewrites only the CPU-related top-level sections of an existing domain XML
// (<vcpu>, <cputune>, <cpu>, <numatune>, and <memoryBacking>/<iothreads> when the layout asks),
// keeping every other byte of the original text.
#include <filesystem>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "orchestrator/domain/domain_xml_writer.hpp"

namespace topolab {

// Text-level patch: replaces/inserts the sections; returns the new XML text.
Result<std::string> patch_domain_xml(const std::string& original_xml, const DomainSpec& spec);

// A small unified line diff ("--- a", "+++ b", @@ hunks with `context` lines).
std::string unified_diff(const std::string& before, const std::string& after,
                         const std::string& before_name, const std::string& after_name,
                         int context = 3);

struct ApplyOptions {
  std::string connect_uri;  // empty: qemu:///system
  std::string domain;
  bool dry_run = false;
  bool live = false;
  std::filesystem::path backup_dir;  // empty: ./topolab-backups
  Accelerator accel = Accelerator::kKvm;
};
struct ApplyResult {
  std::string diff;
  std::filesystem::path backup;  // empty on dry-run
  bool changed = false;
  std::vector<std::string> notes;
};

// Reads the persistent XML of the domain, patches it, saves a backup, defines the result.
Result<ApplyResult> apply_layout_to_domain(const ApplyOptions&, const Layout&, const PlacementPlan&,
                                           const std::string& host_vendor);

}  // namespace topolab
