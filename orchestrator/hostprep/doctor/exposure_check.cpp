// What the guest is told vs what its OS uses: Windows client editions ignore CPUs on sockets
// beyond their licence (Home: 1 socket, Pro: 2, Pro for Workstations: 4), silently.
#include <string>

#include "orchestrator/hostprep/doctor/checks.hpp"
#include "orchestrator/model/layout/guest_edition.hpp"

namespace topolab::doctor {

CheckResult check_exposure(const GuestRequirements* req) {
  if (!req) return skip("exposure", "no layout");
  std::string told = std::to_string(req->sockets) + " socket" + (req->sockets == 1 ? "" : "s");
  if (!req->guest_os) {
    if (req->sockets > 1) {
      return warn("exposure",
                  "guest is told " + told +
                      " and its OS is unknown: Windows Home "
                      "uses 1 socket, Pro 2 (CPUs beyond are ignored)",
                  "topolab doctor --guest-os windows-pro ...  # or expose dies/numa instead of "
                  "sockets");
    }
    return ok("exposure", "guest is told " + told);
  }
  // A layout's [guest] os that names no known edition is said, not read as "no limit".
  const GuestEdition& os = *req->guest_os;
  const int limit = os.socket_limit;
  const std::string unknown_note = os.known ? ""
                                            : " ('" + os.written + "' is not a known edition" +
                                                  (limit == 1 ? ", read as Home" : "") + ")";
  if (limit > 0 && req->sockets > limit) {
    return warn("exposure",
                "guest is told " + told + " but " + os.name + " uses at most " +
                    std::to_string(limit) + ": vCPUs on the other sockets stay idle" + unknown_note,
                "set [expose] as = \"dies\" or \"numa\" (one socket) in the layout, or reduce "
                "guest.l3_groups to " +
                    std::to_string(limit));
  }
  if (!os.known) {
    return warn("exposure", "guest is told " + told + unknown_note,
                "set [guest] os to one of " + known_guest_editions());
  }
  return ok("exposure", "guest is told " + told + ", " + os.name + " uses " +
                            (limit > 0 ? "up to " + std::to_string(limit) : std::string("all")));
}

}  // namespace topolab::doctor
