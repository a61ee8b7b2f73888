#pragma once
// The planning stage (issue 28): what a guest of one cell is, computed once from the host facts
// recorded before it (the host topology, the vCPU limit) and the layout after its overrides.
// No libvirt here: `topolab plan/xml/apply/boot`, the doctor and the experiment runner all plan
// through plan_guest, so a layout is placed by one function and in one way; the session boots
// the plan it is given, and the plan's JSON (guest_plan_to_json) is stored with the boot, where
// the report's pictures read it (report/svg_data.cpp) instead of planning again.
#include <nlohmann/json.hpp>
#include <optional>

#include "common/result.hpp"
#include "host/host_topology.hpp"
#include "orchestrator/model/layout/layout.hpp"
#include "orchestrator/planning/placement/placement_plan.hpp"
#include "orchestrator/planning/plan/vcpu_limit.hpp"

namespace topolab::plan {

// What is known of the host before anything is planned on it.
struct HostFacts {
  HostTopology host;
  // nullopt: not checked (the doctor's qemu hook asks only where a defined guest's vCPUs go).
  std::optional<VcpuLimit> vcpu_limit;
};

struct GuestPlan {
  Layout layout;  // after overrides and factor levels
  PlacementPlan placement;
};

// The vCPU limit first (a layout that can never boot is refused with the limit's source), then
// the placement (its refusal prefixed "layout NAME").
Result<GuestPlan> plan_guest(Layout layout, const HostFacts& facts);

// What the store keeps with a boot: the placement (plan_to_json), the form the report draws.
nlohmann::json guest_plan_to_json(const GuestPlan&);

}  // namespace topolab::plan
