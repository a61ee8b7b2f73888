#pragma once
// The sequence plan/xml/apply/boot share: the layout (with CLI overrides), the host topology it
// goes on, and the placement of its vCPUs there. One place, so the error messages stay the same
// across commands.
#include <utility>

#include "orchestrator/cli/layout_override_options.hpp"
#include "orchestrator/hostsource/host_source.hpp"
#include "orchestrator/placement/placement_plan.hpp"
#include "orchestrator/session/vcpu_limits.hpp"

namespace topolab::cli {

struct PlacedLayout {
  Layout layout;
  HostTopology host;
  PlacementPlan plan;
};

inline Result<PlacedLayout> load_placed_layout(const LayoutArgs& args,
                                               const TopologySource& source) {
  TL_ASSIGN(auto layout, load_layout_with_overrides(args));
  // A layout that can never boot is refused here, at plan time, with the limit's source.
  const bool from_libvirt = source.sysfs.empty() && source.caps.empty();
  TL_TRY(session::check_vcpu_limit(layout, from_libvirt
                                               ? session::libvirt_vcpu_limit(source.connect)
                                               : session::static_vcpu_limit()));
  TL_ASSIGN(auto host, load_host_topology(source));
  TL_ASSIGN_CTX(auto plan, plan_placement(layout, host), "layout " + layout.name);
  return PlacedLayout{std::move(layout), std::move(host), std::move(plan)};
}

}  // namespace topolab::cli
