#pragma once
// One libvirt domain's lifecycle as small, checked steps: define (persistent) from XML, start,
// destroy, undefine, wait for shut-off with a deadline, read the live XML and find a channel's
// UNIX socket in it. Ownership and cleanup-on-every-path live in domain_registry.hpp.
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.hpp"
#include "orchestrator/libvirt/virt/libvirt_handles.hpp"

namespace topolab::virt {

enum class DomainRunState { kShutoff, kRunning, kPaused, kOther };

// Defines a persistent domain. Refuses when a domain of that name already exists, so a run
// never redefines (and so takes over) a domain it did not create.
Result<DomainPtr> define_domain(virConnectPtr conn, const std::string& xml);
Result<DomainPtr> lookup_domain(virConnectPtr conn, const std::string& name);
// nullopt when libvirt says no such domain exists. Any other failure (a dead connection after a
// libvirtd restart says "client socket is closed") is an error, never "gone": cleanup code that
// took it as gone would leak the domain silently.
Result<std::optional<DomainPtr>> find_domain_by_uuid(virConnectPtr conn, const std::string& uuid);

// On failure: libvirt's own reason (captured before any other libvirt call) and, for local QEMU
// domains, what QEMU wrote to /var/log/libvirt/qemu/NAME.log during this start when libvirt's
// message does not already quote it.
// `paused` (VIR_DOMAIN_START_PAUSED): the vCPUs wait for resume_domain, so streams opened in
// between (a remote guest's console) miss none of the guest's output.
Result<void> start_domain(virDomainPtr dom, bool paused = false);
Result<void> resume_domain(virDomainPtr dom);
// libvirt's per-domain QEMU log on this host (qemu:///system).
std::filesystem::path qemu_log_path(const std::string& domain_name);
// Hard power-off; succeeds when the domain is not running (nothing to do).
Result<void> destroy_domain(virDomainPtr dom);
// Removes the persistent definition (and managed save / snapshot metadata / NVRAM).
Result<void> undefine_domain(virDomainPtr dom);
// destroy + undefine, both attempted even if the first fails; the errors joined.
Result<void> destroy_and_undefine(virDomainPtr dom);

Result<DomainRunState> domain_state(virDomainPtr dom);
// Waits until the domain is shut off (woken by libvirt lifecycle events, event_loop.hpp; polled
// every 20 ms where events are unavailable), or fails when `timeout` passes first.
Result<void> wait_for_shutoff(virDomainPtr dom, std::chrono::milliseconds timeout);
// Asks the guest to power off (libvirt's default method); the caller waits with wait_for_shutoff.
Result<void> request_shutdown(virDomainPtr dom);
// Presses the guest's ACPI power button (VIR_DOMAIN_SHUTDOWN_ACPI_POWER_BTN): only ACPI, never a
// QEMU guest agent the template may carry. The caller waits with wait_for_shutoff.
Result<void> press_acpi_power_button(virDomainPtr dom);

std::string domain_name(virDomainPtr dom);
Result<std::string> domain_uuid(virDomainPtr dom);
// The domain XML; `live` gives the running definition (with the paths libvirt chose).
Result<std::string> domain_xml(virDomainPtr dom, bool live = true);

// The UNIX socket path of the virtio channel whose target name is `channel_name`
// (e.g. "org.topolab.agent.0") in a domain XML. Errors when absent or without a path.
Result<std::filesystem::path> find_channel_socket(std::string_view domain_xml,
                                                  std::string_view channel_name);

}  // namespace topolab::virt
