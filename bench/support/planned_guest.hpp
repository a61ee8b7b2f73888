#pragma once
// What the benchmarks that boot a guest prepare before their first boot (boot_bench,
// host_sampler_bench): the layout with its overrides, this host's topology, the built-in image,
// the host's accelerator decision and the cell's guest plan announced for it, each step's error
// as it is.
#include "orchestrator/cli/layout_override_options.hpp"
#include "orchestrator/guest/image/guest_image.hpp"
#include "orchestrator/guest/session/boot_host.hpp"
#include "orchestrator/libvirt/hostsource/host_source.hpp"
#include "orchestrator/planning/plan/guest_plan.hpp"

namespace topolab::bench_support {

struct PlannedGuest {
  Layout layout;
  HostTopology host;
  plan::GuestPlan plan;
  GuestImage image;
  virt::AccelDecision accel;
};

inline Result<PlannedGuest> plan_guest_here(const cli::LayoutArgs& args,
                                            virt::AccelMode accel = virt::AccelMode::kAuto) {
  TL_ASSIGN(Layout layout, cli::load_layout_with_overrides(args));
  TL_ASSIGN(HostTopology host, load_host_topology({}));
  TL_ASSIGN(GuestImage image, build_guest_image({}));
  TL_ASSIGN(const auto decided, session::decide_boot_host({"", accel, image}));
  TL_ASSIGN(plan::GuestPlan plan,
            plan::plan_guest(layout, {host, std::nullopt, decided.accel.accel}));
  return PlannedGuest{std::move(layout), std::move(host), std::move(plan), std::move(image),
                      decided.accel};
}

}  // namespace topolab::bench_support
