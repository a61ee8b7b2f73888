#pragma once
// The text half of `topolab apply` (orchestrator/libvirt/apply/ talks to libvirt): rewrites only
// the CPU-related top-level sections of an existing domain XML
// (<vcpu>, <cputune>, <cpu>, <numatune>, and <memoryBacking>/<iothreads> when the layout asks;
// <features>/<clock> for hyperv, <devices> for a [[hostdev]] not passed through yet),
// keeping every other byte of the original text.
#include <string>
#include <vector>

#include "common/result.hpp"
#include "orchestrator/planning/domain/domain_xml_writer.hpp"

namespace topolab {

// Text-level patch: replaces/inserts the sections; returns the new XML text.
Result<std::string> patch_domain_xml(const std::string& original_xml, const DomainSpec& spec);
// The same, saying in `notes` what it did with the layout fields outside the CPU sections
// (hyperv, [[hostdev]] written; iothreads left out when no disk would use them).
Result<std::string> patch_domain_xml(const std::string& original_xml, const DomainSpec& spec,
                                     std::vector<std::string>& notes);

// A small unified line diff ("--- a", "+++ b", @@ hunks with `context` lines).
std::string unified_diff(const std::string& before, const std::string& after,
                         const std::string& before_name, const std::string& after_name,
                         int context = 3);

}  // namespace topolab
