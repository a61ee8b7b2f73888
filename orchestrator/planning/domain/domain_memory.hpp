#pragma once
// A domain's memory size and its hugepage backing, for `topolab xml` (a new domain: always the
// layout's memory_mib) and `topolab apply` (an existing one: the layout's memory_mib only when
// the layout gives one; issue 34). Either way the hugepages that back the memory must divide
// it, or libvirt would define a domain that cannot start.
#include <cstdint>
#include <pugixml.hpp>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "orchestrator/model/layout/layout.hpp"

namespace topolab::domain {

// Sets <memory> and <currentMemory> to `kib` (unit KiB), in libvirt's order.
void write_memory_kib(pugi::xml_node domain, std::uint64_t kib);

// The page sizes (KiB) the domain's own <memoryBacking><hugepages> asks for; a bare
// <hugepages/> is the host's default size, taken as 2 MiB (x86's; a 1 GiB default is set only
// with default_hugepagesz= on the kernel command line). Empty: no hugepages.
Result<std::vector<std::uint64_t>> domain_hugepage_kib(pugi::xml_node domain);

// `apply`'s memory step: with the layout's memory_mib (when given) writes <memory> and
// <currentMemory>, else keeps the domain's; refuses a size that the backing hugepages (the
// layout's memory.hugepages when set, which replace the domain's, else the domain's own) do not
// divide, and a resize of a domain with memory hot-plug (<maxMemory>). Each outcome is a note;
// touched top-level sections are added to `names`.
Result<void> patch_memory(pugi::xml_node domain, const Layout& layout,
                          std::vector<std::string>& names, std::vector<std::string>& notes);

}  // namespace topolab::domain
