#pragma once
// The sequence plan/xml/apply/boot share: the layout (with CLI overrides), the host topology it
// goes on, and the guest plan (the placement of its vCPUs there). One place, so the error
// messages stay the same across commands.
#include <utility>

#include "orchestrator/cli/layout_override_options.hpp"
#include "orchestrator/guest/session/vcpu_limits.hpp"
#include "orchestrator/libvirt/hostsource/host_source.hpp"
#include "orchestrator/planning/placement/placement_plan.hpp"
#include "orchestrator/planning/plan/guest_plan.hpp"

namespace topolab::cli {

// The plan as planned (not yet announced: `xml` announces it for the base's accelerator) and
// the host topology it was made for (the plan printer draws it).
struct PlacedLayout {
  plan::GuestPlan plan;
  HostTopology host;
};

// The host facts a plan is made from: the topology and, read from the same source, the vCPU
// limit (libvirt's machine limit, or only the hello bound without libvirt).
inline Result<plan::HostFacts> load_host_facts(const TopologySource& source) {
  const bool from_libvirt = source.sysfs.empty() && source.caps.empty();
  auto limit =
      from_libvirt ? session::libvirt_vcpu_limit(source.connect) : session::static_vcpu_limit();
  TL_ASSIGN(auto host, load_host_topology(source));
  return plan::HostFacts{std::move(host), std::move(limit), std::nullopt};
}

inline Result<PlacedLayout> load_placed_layout(const LayoutArgs& args,
                                               const TopologySource& source) {
  TL_ASSIGN(auto layout, load_layout_with_overrides(args));
  TL_ASSIGN(auto facts, load_host_facts(source));
  // A layout that can never boot is refused here, at plan time, with the limit's source.
  TL_ASSIGN(auto planned, plan::plan_guest(std::move(layout), facts));
  return PlacedLayout{std::move(planned), std::move(facts.host)};
}

// For a boot (`topolab boot`, the tests' built-in boots): the layout and host facts first (a
// bad layout is refused before anything is contacted), then `decide` gives the host's
// accelerator, and the plan is made once, announced for it.
template <typename DecideAccel>
Result<plan::GuestPlan> load_boot_plan(const LayoutArgs& args, const TopologySource& source,
                                       DecideAccel&& decide) {
  TL_ASSIGN(auto layout, load_layout_with_overrides(args));
  TL_ASSIGN(auto facts, load_host_facts(source));
  TL_ASSIGN(facts.accel, decide());
  return plan::plan_guest(std::move(layout), facts);
}

}  // namespace topolab::cli
