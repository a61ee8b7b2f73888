#pragma once
// `topolab apply` on a libvirt domain: reads its persistent XML, patches the CPU sections
// (patch_domain_xml, domain/), previews what libvirt would store, saves a backup, defines the
// result and, with --live, pins the running vCPUs. Above domain/ and virt/, so that domain/
// stays libvirt-free and virt/ does not reach up into layouts and plans.
#include <filesystem>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "orchestrator/planning/domain/domain_patcher.hpp"

namespace topolab {

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
