#pragma once
// Leftovers of runs that could not clean up (SIGKILL, power loss): topolab domains whose
// <topolab:run> metadata names a process that no longer exists. Domains of live runs, domains
// without our metadata, and anything not named with the prefix are never touched.
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "orchestrator/libvirt/virt/libvirt_handles.hpp"
#include "orchestrator/libvirt/virt/run_identity.hpp"

namespace topolab::virt {

struct StaleDomain {
  std::string name;
  RunOwner owner;
};

// Domains named `prefix*` whose metadata owner is dead; `run_id` non-empty narrows the search
// to that run.
Result<std::vector<StaleDomain>> find_stale_domains(virConnectPtr conn,
                                                    std::string_view prefix = kDomainPrefix,
                                                    std::string_view run_id = {});
// Destroys and undefines them; returns the names removed. A failure on one domain does not
// stop the others; the error lists every failure.
Result<std::vector<std::string>> cleanup_stale_domains(virConnectPtr conn,
                                                       std::string_view prefix = kDomainPrefix,
                                                       std::string_view run_id = {});

}  // namespace topolab::virt
