#pragma once
// The planning stage (issue 28): what a guest of one cell is, computed once from the host facts
// recorded before it (the host topology, the vCPU limit, the accelerator the host runs guests
// on) and the layout after its overrides. No libvirt here: `topolab plan/xml/apply/boot`, the
// doctor and the experiment runner all plan through plan_guest, so a layout is placed and
// announced by one function and in one way; the session boots the plan it is given (its domain
// XML is written from plan.announced), and the plan's JSON (guest_plan_to_json) is stored with
// the boot, where the report's pictures read it (report/svg_data.cpp) instead of planning again.
#include <nlohmann/json.hpp>
#include <optional>

#include "common/accelerator.hpp"
#include "common/result.hpp"
#include "host/host_topology.hpp"
#include "orchestrator/model/layout/layout.hpp"
#include "orchestrator/planning/placement/announced_topology.hpp"
#include "orchestrator/planning/placement/placement_plan.hpp"
#include "orchestrator/planning/plan/vcpu_limit.hpp"

namespace topolab::plan {

// What is known of the host before anything is planned on it.
struct HostFacts {
  HostTopology host;
  // nullopt: not checked (the doctor's qemu hook asks only where a defined guest's vCPUs go).
  std::optional<VcpuLimit> vcpu_limit;
  // The accelerator this host's guests run on, decided once before planning (the guest stage's
  // decide_boot_host: a KVM probe or its cached verdict); the CPU model, and so what the guest
  // is told, follows it. nullopt: the plan is not for a boot (`plan`, the doctor, the pictures).
  std::optional<Accelerator> accel;
};

struct GuestPlan {
  Layout layout;  // after overrides and factor levels
  PlacementPlan placement;
  // What the guest is told (sockets/dies/cores, cells, CPU model), announced from the
  // placement with facts.accel and the host's vendor; set exactly when facts.accel was given.
  std::optional<AnnouncedTopology> announced;
};

// The vCPU limit first (a layout that can never boot is refused with the limit's source), then
// the placement (its refusal prefixed "layout NAME"), then, for a boot, the announced topology
// (e.g. host-passthrough refused under TCG, before any boot).
Result<GuestPlan> plan_guest(Layout layout, const HostFacts& facts);

// Sets plan.announced: what the guest is told on `accel` (plan_guest's last step). `topolab
// xml` calls it itself: its base template, read after the plan (so a bad layout is refused
// first), may name the accelerator and the CPU model.
Result<void> announce_plan(GuestPlan& plan, Accelerator accel, const std::string& host_vendor);

// What the store keeps with a boot: the placement (plan_to_json, the form the report draws);
// for a boot, "announced": the accelerator, the CPU model and its reason, the cells and the
// levels verified against the model; once the guest was defined, "domain_xml": the XML it was
// defined with (DomainXmlWriter's, from the plan's layout and announced topology, with the run's
// name, paths and owner), the same text as the run folder's domain.xml.
nlohmann::json guest_plan_to_json(const GuestPlan&, const std::string& domain_xml = {});

}  // namespace topolab::plan
