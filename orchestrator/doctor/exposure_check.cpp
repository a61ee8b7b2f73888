// What the guest is told vs what its OS uses: Windows client editions ignore CPUs on sockets
// beyond their licence (Home: 1 socket, Pro: 2, Pro for Workstations: 4), silently.
#include <algorithm>
#include <cctype>

#include "orchestrator/doctor/checks.hpp"

namespace topolab::doctor {

int guest_os_socket_limit(const std::string& guest_os) {
  std::string os = guest_os;
  std::transform(os.begin(), os.end(), os.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  static const std::pair<const char*, int> kLimits[] = {
      {"windows-home", 1},        {"windows-pro-workstations", 4},
      {"windows-workstation", 4}, {"windows-pro", 2},
      {"windows-enterprise", 2},  {"windows-education", 2},
      {"windows-server", 64},     {"linux", 0},
  };
  for (const auto& [prefix, limit] : kLimits) {
    if (os.rfind(prefix, 0) == 0) return limit;
  }
  return 0;
}

CheckResult check_exposure(const GuestRequirements* req) {
  if (!req) return skip("exposure", "no layout");
  std::string told = std::to_string(req->sockets) + " socket" + (req->sockets == 1 ? "" : "s");
  if (req->guest_os.empty()) {
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
  std::string os = req->guest_os;
  bool windows = os.rfind("windows", 0) == 0;
  int limit = guest_os_socket_limit(os);
  if (windows && limit == 0) limit = 1;  // unknown edition: assume the strictest (Home)
  if (limit > 0 && req->sockets > limit) {
    return warn("exposure",
                "guest is told " + told + " but " + os + " uses at most " + std::to_string(limit) +
                    ": vCPUs on the other sockets stay idle",
                "set [expose] as = \"dies\" or \"numa\" (one socket) in the layout, or reduce "
                "guest.l3_groups to " +
                    std::to_string(limit));
  }
  return ok("exposure", "guest is told " + told + ", " + os + " uses " +
                            (limit > 0 ? "up to " + std::to_string(limit) : std::string("all")));
}

}  // namespace topolab::doctor
