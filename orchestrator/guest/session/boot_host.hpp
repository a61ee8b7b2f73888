#pragma once
// The guest stage's host fact for planning (issue 28): which accelerator this host's guests run
// on, decided once per host before any cell is planned (`topolab boot`, each host of an
// experiment), so the plan (plan::plan_guest with HostFacts::accel) announces the CPU model and
// topology the session then boots unchanged. `--accel auto` probes KVM (kvm_probe.hpp) or reads
// the cached verdict; kvm and tcg are checked, never probed. A remote host's probe boots from
// the image placed in its pool (remote::place_image_on_host, uploading only what it lacks).
#include <chrono>
#include <filesystem>
#include <string>
#include <utility>

#include "common/result.hpp"
#include "orchestrator/guest/image/guest_image.hpp"
#include "orchestrator/guest/remote/storage_pool.hpp"
#include "orchestrator/libvirt/virt/accelerator.hpp"

namespace topolab::session {

struct BootHostRequest {
  BootHostRequest(std::string uri, virt::AccelMode mode, GuestImage probe_image,
                  remote::PoolSpec image_pool = {})
      : connect_uri(std::move(uri)),
        accel(mode),
        image(std::move(probe_image)),
        pool(std::move(image_pool)) {}
  std::string connect_uri;  // empty: qemu:///system
  virt::AccelMode accel = virt::AccelMode::kAuto;
  GuestImage image;  // the probe guest boots it
  remote::PoolSpec pool;
  std::filesystem::path accel_cache = virt::kDefaultAccelCache;
  // The probe's files (kvm-probe/, kvm-probe.2/ when a hung probe ran again) go under it;
  // empty: /var/lib/topolab/runs/kvm-probe-<new run id>.
  std::filesystem::path probe_root;
};

struct BootHost {
  virt::AccelDecision accel;
  std::chrono::milliseconds decided_in{0};  // the probe's time, or a cache read's
};

Result<BootHost> decide_boot_host(const BootHostRequest&);

}  // namespace topolab::session
