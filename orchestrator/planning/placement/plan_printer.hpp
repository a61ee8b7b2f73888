#pragma once
// Human-readable plan: vCPU -> host CPU table, group -> host L3 domain, announced topology,
// emulator/memory placement, notes and warnings.
#include <ostream>

#include "host/host_topology.hpp"
#include "orchestrator/model/layout/layout.hpp"
#include "orchestrator/planning/placement/placement_plan.hpp"

namespace topolab {

std::string describe_layout(const Layout&);
void print_plan(std::ostream&, const Layout&, const PlacementPlan&, const HostTopology&);

}  // namespace topolab
