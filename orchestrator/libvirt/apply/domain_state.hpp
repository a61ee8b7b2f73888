#pragma once
// What apply and apply --undo both read of a domain before rewriting it: its persistent XML
// and whether it may be redefined (persistent; running only with --live or a dry run).
#include <libvirt/libvirt.h>

#include <filesystem>
#include <string>

#include "common/result.hpp"
#include "orchestrator/libvirt/apply/domain_apply.hpp"

namespace topolab {

// The domain's persistent XML as libvirt formats it (secrets included: it is what we define).
Result<std::string> persistent_domain_xml(virDomainPtr dom, const std::string& name);

// Whether the domain runs; refuses a transient one and a running one without --live/--dry-run.
Result<bool> check_domain_redefinable(virDomainPtr dom, const ApplyOptions& opts);

// Where apply saves the previous XML and --undo looks for it: opts.backup_dir, else
// ./topolab-backups.
std::filesystem::path apply_backup_dir(const ApplyOptions& opts);

}  // namespace topolab
