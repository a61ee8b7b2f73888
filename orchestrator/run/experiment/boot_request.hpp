#pragma once
// The one place a BootRequest is made (issue 28): `topolab boot` and the experiment runner
// both boot a stored-to-be plan (plan::GuestPlan, announced for the host's accelerator decision
// from session::decide_boot_host) with the caller's choices, under one rule for the timeouts of
// the guest kind (the built-in image or an own guest's prepared copy).
#include <chrono>
#include <optional>
#include <string>

#include "orchestrator/guest/image/guest_image.hpp"
#include "orchestrator/guest/remote/storage_pool.hpp"
#include "orchestrator/guest/session/guest_session.hpp"
#include "orchestrator/libvirt/guestsource/disk_guest.hpp"
#include "orchestrator/libvirt/virt/accelerator.hpp"
#include "orchestrator/libvirt/virt/boot_watchdog.hpp"
#include "orchestrator/planning/plan/guest_plan.hpp"

namespace topolab::experiment {

// The built-in guest's hello bound: TCG boots on a loaded 2-core host take ~60 s.
inline constexpr std::chrono::milliseconds kBuiltinHelloTimeout{180000};

// What the caller chooses for one boot, beyond the plan.
struct BootChoices {
  std::string connect_uri;  // empty: qemu:///system
  GuestImage image;
  std::string run_id;  // empty: a new one (an own guest's copy is prepared under its run id)
  remote::PoolSpec pool;
  // Given: used as it is. nullopt: the guest kind's bound (kBuiltinHelloTimeout, or an own
  // guest's guestsource::kDiskHelloTimeoutMs: its boot loader and init take longer).
  std::optional<std::chrono::milliseconds> hello_timeout;
  bool keep = false;
  int boot_retries = virt::kDefaultBootRetries;
  std::chrono::milliseconds watchdog{0};  // 0: derived; negative: off
  // An own guest (issue 14): its prepared copy, which must outlive the session; null: built-in.
  const guestsource::PreparedDisk* disk = nullptr;
};

BootRequest make_boot_request(const plan::GuestPlan& plan, const virt::AccelDecision& accel,
                              const BootChoices& choices);

}  // namespace topolab::experiment
