#pragma once
// libvirt's default event loop on a thread of its own (issue 17: event-driven waits instead of
// polling). libvirt delivers domain events only on connections opened after an event loop
// implementation was registered, so open_connection() calls ensure_event_loop() first.
#include <chrono>
#include <optional>

#include "common/result.hpp"
#include "orchestrator/libvirt/virt/libvirt_handles.hpp"

namespace topolab::virt {

// Registers libvirt's default event implementation and starts the thread that runs it, once per
// process (thread-safe). The thread is detached and lives as long as the process: libvirt has
// no way to stop the default loop. False when registering failed (waits then poll).
bool ensure_event_loop();

// Waits until `dom` is shut off or `timeout` passes, woken by the domain's lifecycle events
// (VIR_DOMAIN_EVENT_STOPPED); the state is re-read on every wake and at least every `recheck`,
// so a lost event costs at most that. nullopt: events are unavailable on this connection (no
// event loop, or registering the callback failed): the caller polls instead. (`recheck` is a
// parameter so that a test can tell the event's wake from the re-check on a loaded machine.)
std::optional<Result<void>> wait_for_shutoff_event(
    virDomainPtr dom, std::chrono::milliseconds timeout,
    std::chrono::milliseconds recheck = std::chrono::seconds(1));

}  // namespace topolab::virt
