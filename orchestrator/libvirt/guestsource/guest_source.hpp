#pragma once
// How the libvirt stage boots an own guest (GuestSource, the model's: model/layout/
// guest_source.hpp): its bounds.
#include "orchestrator/model/layout/guest_source.hpp"

namespace topolab::guestsource {

using topolab::GuestKind;
using topolab::GuestSource;

// Own OSes boot through firmware, a boot loader and an init system: minutes under TCG.
inline constexpr int kDiskHelloTimeoutMs = 600000;
// A systemd poweroff under TCG takes longer than the built-in agent's. Each graceful step (after
// the agent's request, after the ACPI power button) waits this long: destroy after 120 s at most.
inline constexpr int kDiskShutdownTimeoutMs = 60000;

}  // namespace topolab::guestsource
