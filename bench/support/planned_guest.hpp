#pragma once
// What the benchmarks that boot a guest prepare before their first boot (boot_bench,
// host_sampler_bench): the layout with its overrides, this host's topology, the cell's guest
// plan and the built-in image, each step's error as it is.
#include "orchestrator/cli/layout_override_options.hpp"
#include "orchestrator/guest/image/guest_image.hpp"
#include "orchestrator/libvirt/hostsource/host_source.hpp"
#include "orchestrator/planning/plan/guest_plan.hpp"

namespace topolab::bench_support {

struct PlannedGuest {
  Layout layout;
  HostTopology host;
  plan::GuestPlan plan;
  GuestImage image;
};

inline Result<PlannedGuest> plan_guest_here(const cli::LayoutArgs& args) {
  TL_ASSIGN(Layout layout, cli::load_layout_with_overrides(args));
  TL_ASSIGN(HostTopology host, load_host_topology({}));
  TL_ASSIGN(plan::GuestPlan plan, plan::plan_guest(layout, {host, std::nullopt}));
  TL_ASSIGN(GuestImage image, build_guest_image({}));
  return PlannedGuest{std::move(layout), std::move(host), std::move(plan), std::move(image)};
}

}  // namespace topolab::bench_support
