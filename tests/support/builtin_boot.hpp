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
#include "orchestrator/guest/session/boot_host.hpp"
#include "orchestrator/guest/session/guest_session.hpp"

namespace topolab::testing {

// The host's accelerator for a test boot, as `topolab boot` decides it: TCG, checked on the
// connection and never probed.
inline session::BootHostRequest tcg_boot_host(std::string connect_uri = "",
                                              remote::PoolSpec pool = {}) {
  return {std::move(connect_uri), virt::AccelMode::kTcg, GuestImage{}, std::move(pool)};
}

// The built-in image on the ryzen-1700x preset with `overrides` (key, value) applied, planned as
// `topolab boot` plans it: the host's accelerator decided first (`host`, whose image is the one
// built here), then the plan announced for it; the caller adds its run id, run folder, timeouts,
// connection and retries.
inline Result<BootRequest> builtin_boot(std::vector<std::pair<std::string, std::string>> overrides,
                                        std::vector<std::string> sets,
                                        session::BootHostRequest host) {
  cli::LayoutArgs args;
  args.layout = "ryzen-1700x";
  args.overrides = std::move(overrides);
  args.sets = std::move(sets);
  BootRequest req;
  auto decide = [&]() -> Result<Accelerator> {
    TL_ASSIGN(req.image, build_guest_image(ImageOptions{}));
    host.image = req.image;
    TL_ASSIGN(const auto decided, session::decide_boot_host(host));
    req.accel = decided.accel;
    return decided.accel.accel;
  };
  TL_ASSIGN(req.plan, cli::load_boot_plan(args, TopologySource{}, decide));
  req.connect_uri = host.connect_uri;
  req.pool = host.pool;
  return req;
}

// The same under TCG.
inline Result<BootRequest> builtin_tcg_boot(
    std::vector<std::pair<std::string, std::string>> overrides,
    std::vector<std::string> sets = {}) {
  return builtin_boot(std::move(overrides), std::move(sets), tcg_boot_host());
}

// 2 unpinned vCPUs, flat, one L3 group of 2 cores (Skylake-Server: the model whose topology a
// TCG guest reports as given).
inline Result<BootRequest> two_vcpu_builtin_boot(session::BootHostRequest host = tcg_boot_host()) {
  return builtin_boot({{"placement.policy", "unpinned"},
                       {"expose.as", "flat"},
                       {"guest.l3_groups", "1"},
                       {"guest.cores_per_group", "2"},
                       {"guest.threads_per_core", "1"}},
                      {"cpu.model=Skylake-Server"}, std::move(host));
}

}  // namespace topolab::testing
