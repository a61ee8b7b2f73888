#pragma once
// The layout fields outside the CPU sections that both `topolab xml` (a new domain) and
// `topolab apply` (an existing one) write: Hyper-V enlightenments and PCI passthrough.
#include <pugixml.hpp>
#include <string>
#include <vector>

#include "orchestrator/model/layout/layout.hpp"

namespace topolab {

// <features><hyperv> (when absent), HPET hidden, hypervclock, clock offset localtime (when
// unset): what a Windows guest needs; a domain's own <hyperv> is kept as it is.
void write_hyperv_features(pugi::xml_node domain);

// Appends a <hostdev> for each of the layout's PCI devices the domain does not pass through
// yet (same address); returns the addresses added. Existing hostdevs are never removed.
std::vector<std::string> add_missing_hostdevs(pugi::xml_node devices, const Layout& l);

}  // namespace topolab
