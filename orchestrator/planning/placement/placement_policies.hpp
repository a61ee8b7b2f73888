#pragma once
// The placement policies: which host CPUs carry each vCPU (vcpus, groups, warnings). Emulator
// threads, memory and the announced topology are added by plan_placement.
#include "orchestrator/planning/placement/host_cores.hpp"
#include "orchestrator/planning/placement/placement_plan.hpp"

namespace topolab::placement {

Result<PlacementPlan> plan_l3_aligned(const Layout&, const HostTopology&, const UsableHost&);
Result<PlacementPlan> plan_compact_or_scatter(const Layout&, const HostTopology&, const UsableHost&,
                                              bool scatter);
Result<PlacementPlan> plan_unpinned(const Layout&, const UsableHost&);
Result<PlacementPlan> plan_explicit(const Layout&, const HostTopology&, const UsableHost&);

}  // namespace topolab::placement
