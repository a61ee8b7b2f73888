#pragma once
// What a correct guest should report for a Layout + PlacementPlan (guest CPU ids = vCPU ids),
// in the host model, so one comparison routine serves host and guest.
//   packages: one per socket; dies: per die; cores: one per guest core with its SMT siblings;
//   L3: one per group for sockets/dies/numa exposure, one for flat (and one per socket for
//   Intel-style models under numa exposure, which ignore the NUMA split);
//   NUMA: one node per group for numa exposure, else node 0 with every CPU (the kernel's fake
//   node when the firmware has no SRAT). Memory sizes and L3 sizes are 0 (not predicted).
#include "host/host_topology.hpp"
#include "orchestrator/domain/cpu_model.hpp"
#include "orchestrator/layout/layout.hpp"
#include "orchestrator/placement/placement_plan.hpp"

namespace topolab {

HostTopology intended_guest_topology(const Layout&, const PlacementPlan&);
// Same, for an explicit model choice (the 2-argument form assumes the layout's [cpu] model, or
// the AMD-style default topolab picks under TCG).
HostTopology intended_guest_topology(const Layout&, const PlacementPlan&, CpuVendorStyle);

}  // namespace topolab
