// What the guest is told vs what its OS uses: Windows client editions ignore CPUs on sockets
// beyond their licence (Home: 1 socket, Pro: 2, Pro for Workstations: 4), silently.
#include <algorithm>
#include <cctype>

#include "orchestrator/doctor/checks.hpp"

namespace topolab::doctor {
namespace {

struct Edition {
  const char* name;
  int socket_limit;  // 0: no limit
};
// Longest names first: "windows-pro-workstations" must not be read as "windows-pro".
constexpr Edition kEditions[] = {
    {"windows-pro-workstations", 4},
    {"windows-workstation", 4},
    {"windows-enterprise", 2},
    {"windows-education", 2},
    {"windows-server", 64},
    {"windows-home", 1},
    {"windows-pro", 2},
    {"linux", 0},
};

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool is_version(std::string_view v) {
  return !v.empty() && v.size() <= 16 && std::all_of(v.begin(), v.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.';
  });
}

// The edition NAME is, or is followed by "-VERSION" ("windows-server-2022"); none otherwise.
const Edition* find_edition(const std::string& os) {
  for (const auto& e : kEditions) {
    const std::string_view name = e.name;
    if (os == name) return &e;
    if (os.size() > name.size() + 1 && os.rfind(name, 0) == 0 && os[name.size()] == '-' &&
        is_version(std::string_view(os).substr(name.size() + 1))) {
      return &e;
    }
  }
  return nullptr;
}

}  // namespace

std::string known_guest_editions() {
  std::string names;
  for (const auto& e : kEditions) names += (names.empty() ? "" : ", ") + std::string(e.name);
  return names + " (each optionally followed by -VERSION, e.g. windows-server-2022)";
}

Result<std::string> parse_guest_edition(const std::string& text) {
  const std::string os = lower(text);
  if (find_edition(os)) return os;
  return make_error("guest OS '" + text.substr(0, 60) + "': not a known edition; expected one of " +
                    known_guest_editions());
}

int guest_os_socket_limit(const std::string& guest_os) {
  const Edition* e = find_edition(lower(guest_os));
  return e ? e->socket_limit : 0;
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
  const std::string os = lower(req->guest_os);
  // A layout's [guest] os that names no known edition is said, not read as "no limit".
  const bool known = find_edition(os) != nullptr;
  int limit = guest_os_socket_limit(os);
  if (!known && os.rfind("windows", 0) == 0) limit = 1;  // assume the strictest (Home)
  const std::string unknown_note = known ? ""
                                         : " ('" + req->guest_os.substr(0, 60) +
                                               "' is not a known edition" +
                                               (limit == 1 ? ", read as Home" : "") + ")";
  if (limit > 0 && req->sockets > limit) {
    return warn("exposure",
                "guest is told " + told + " but " + os + " uses at most " + std::to_string(limit) +
                    ": vCPUs on the other sockets stay idle" + unknown_note,
                "set [expose] as = \"dies\" or \"numa\" (one socket) in the layout, or reduce "
                "guest.l3_groups to " +
                    std::to_string(limit));
  }
  if (!known) {
    return warn("exposure", "guest is told " + told + unknown_note,
                "set [guest] os to one of " + known_guest_editions());
  }
  return ok("exposure", "guest is told " + told + ", " + os + " uses " +
                            (limit > 0 ? "up to " + std::to_string(limit) : std::string("all")));
}

}  // namespace topolab::doctor
