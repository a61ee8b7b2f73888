#pragma once
// The built-in guest the integration tests boot directly through GuestSession, built in one
// place: the smallest one (2 unpinned vCPUs, quick under TCG on a loaded 2-core machine, fits
// any host) for the boot watchdog and remote streams, the preset's full one for the own-guest
// shutdown fallback.
#include <string>
#include <utility>
#include <vector>

#include "orchestrator/cli/placed_layout.hpp"
#include "orchestrator/guest/image/guest_image.hpp"
#include "orchestrator/guest/session/guest_session.hpp"

namespace topolab::testing {

// The built-in image under TCG on the ryzen-1700x preset with `overrides` (key, value) applied:
// layout, plan, host vendor, accelerator and image set; the caller adds its run id, run folder,
// timeouts, connection and retries.
inline Result<BootRequest> builtin_tcg_boot(
    std::vector<std::pair<std::string, std::string>> overrides,
    std::vector<std::string> sets = {}) {
  cli::LayoutArgs args;
  args.layout = "ryzen-1700x";
  args.overrides = std::move(overrides);
  args.sets = std::move(sets);
  auto placed = cli::load_placed_layout(args, TopologySource{});
  if (!placed) return placed.error();
  auto image = build_guest_image(ImageOptions{});
  if (!image) return image.error();
  BootRequest req;
  req.layout = placed->layout;
  req.plan = placed->plan;
  req.host_vendor = placed->host.vendor;
  req.accel = virt::AccelMode::kTcg;
  req.image = *image;
  return req;
}

// 2 unpinned vCPUs, flat, one L3 group of 2 cores (Skylake-Server: the model whose topology a
// TCG guest reports as given).
inline Result<BootRequest> two_vcpu_builtin_boot() {
  return builtin_tcg_boot({{"placement.policy", "unpinned"},
                           {"expose.as", "flat"},
                           {"guest.l3_groups", "1"},
                           {"guest.cores_per_group", "2"},
                           {"guest.threads_per_core", "1"}},
                          {"cpu.model=Skylake-Server"});
}

}  // namespace topolab::testing
