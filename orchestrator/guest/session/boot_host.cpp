#include "orchestrator/guest/session/boot_host.hpp"

#include <optional>

#include "orchestrator/guest/remote/host_image.hpp"
#include "orchestrator/guest/session/guest_session.hpp"
#include "orchestrator/guest/session/kvm_probe.hpp"
#include "orchestrator/libvirt/virt/libvirt_handles.hpp"
#include "orchestrator/libvirt/virt/run_identity.hpp"

namespace topolab::session {

Result<BootHost> decide_boot_host(const BootHostRequest& req) {
  const auto t0 = std::chrono::steady_clock::now();
  TL_ASSIGN(auto conn, virt::open_connection(req.connect_uri));
  const std::string run_id = virt::make_run_id();
  const auto root = req.probe_root.empty() ? kRunsRoot / ("kvm-probe-" + run_id) : req.probe_root;
  int attempt = 0;  // a hung probe is run again (kKvmProbeAttempts): its own folder
  // Only called when a probe is needed: kvm/tcg and a cached verdict touch neither the pool
  // nor the image.
  std::optional<Error> unplaced;  // the image could not reach the host: the boot's error, not
                                  // a verdict on KVM (which would be cached)
  auto probe_once = [&]() -> virt::KvmVerdict {
    auto placed = remote::place_image_on_host(conn.get(), req.image, req.pool);
    if (!placed) {
      unplaced = placed.error();
      return {false, placed.error().message, /*hung=*/true};  // never cached
    }
    GuestImage image = req.image;
    image.kernel = placed->image.kernel;
    image.initrd = placed->image.initrd;
    KvmProbeOptions o{image, root / "kvm-probe", run_id};
    if (++attempt > 1) o.work_dir += "." + std::to_string(attempt);
    return probe_kvm(conn.get(), o);
  };
  auto accel = virt::choose_accelerator(conn.get(), req.accel, probe_once, req.accel_cache);
  if (unplaced) return *unplaced;
  if (!accel) return accel.error();
  return BootHost{std::move(accel).value(), std::chrono::duration_cast<std::chrono::milliseconds>(
                                                std::chrono::steady_clock::now() - t0)};
}

}  // namespace topolab::session
