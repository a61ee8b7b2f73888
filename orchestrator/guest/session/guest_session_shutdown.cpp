// An own guest's graceful shutdown (issue 14): the agent's request, then the ACPI power button,
// then (the caller) destroy. A real OS flushes its disk on the way down; a guest whose agent
// ignores the request (no --poweroff, a broken unit, a Windows service without the privilege)
// still gets the same shutdown a user's power button would give before it is pulled.
#include "orchestrator/guest/session/guest_session.hpp"
#include "orchestrator/libvirt/virt/domain_lifecycle.hpp"

namespace topolab {

std::string GuestSession::stop_gracefully(bool agent_acked, std::string& problems) {
  auto* dom = domain_->get();
  const auto bound = std::to_string(shutdown_timeout_.count());
  auto add_problem = [&](const std::string& p) { problems += (problems.empty() ? "" : "; ") + p; };
  if (agent_acked) {
    logging::debug("shutdown of {}: agent acknowledged; waiting up to {} ms for power-off", name_,
                   bound);
    auto waited = virt::wait_for_shutoff(dom, shutdown_timeout_);
    if (waited) return "agent";
    logging::debug("shutdown of {}: {}", name_, waited.error().message);
    logging::warn(
        "{} did not power off within {} ms of the agent's shutdown; pressing its ACPI "
        "power button",
        name_, bound);
  } else {
    logging::warn("{}: no acknowledged agent shutdown; pressing its ACPI power button", name_);
  }
  if (auto pressed = virt::press_acpi_power_button(dom); !pressed) {
    add_problem(pressed.error().message + " (destroyed)");
  } else if (auto waited = virt::wait_for_shutoff(dom, shutdown_timeout_); waited) {
    logging::info("{} powered off after the ACPI power button", name_);
    return "acpi";
  } else {
    logging::debug("shutdown of {}: {}", name_, waited.error().message);
    add_problem("still running " + bound + " ms after the ACPI power button (destroyed)");
  }
  logging::warn("{} ignored the agent and the ACPI power button: destroying it", name_);
  return "destroy";
}

}  // namespace topolab
