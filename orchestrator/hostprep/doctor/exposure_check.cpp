// What the guest is told vs what its OS uses: Windows client editions ignore CPUs on sockets
// beyond their licence (Home: 1 socket, Pro: 2, Pro for Workstations: 4), silently.
#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "orchestrator/hostprep/doctor/checks.hpp"
#include "orchestrator/model/layout/guest_os.hpp"

namespace topolab::doctor {
namespace {

// An edition of a guest OS (layout/guest_os.hpp) whose socket limit differs by edition.
struct EditionRow {
  GuestOs os;
  const char* edition;  // named "<os>-<edition>"
  int socket_limit;     // 0: no limit
};
// Longest names first: "windows-pro-workstations" must not be read as "windows-pro".
constexpr EditionRow kEditionRows[] = {
    {GuestOs::kWindows, "pro-workstations", 4},
    {GuestOs::kWindows, "workstation", 4},
    {GuestOs::kWindows, "enterprise", 2},
    {GuestOs::kWindows, "education", 2},
    {GuestOs::kWindows, "server", 64},
    {GuestOs::kWindows, "home", 1},
    {GuestOs::kWindows, "pro", 2},
};

struct Edition {
  std::string name;  // "windows-home", "linux"
  int socket_limit;  // 0: no limit
};

bool has_edition_rows(GuestOs os) {
  return std::any_of(std::begin(kEditionRows), std::end(kEditionRows),
                     [os](const EditionRow& r) { return r.os == os; });
}

// The rows' editions, then every OS without rows as one edition of its own name and no limit
// ("linux"): a new guest OS is known here by its enum row alone.
const std::vector<Edition>& editions() {
  static const std::vector<Edition> list = [] {
    std::vector<Edition> out;
    for (const auto& r : kEditionRows)
      out.push_back({std::string(to_string(r.os)) + "-" + r.edition, r.socket_limit});
    for (const auto& o : kGuestOsNames)
      if (!has_edition_rows(o.os)) out.push_back({std::string(o.name), 0});
    return out;
  }();
  return list;
}

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
  for (const auto& e : editions()) {
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
  for (const auto& e : editions()) names += (names.empty() ? "" : ", ") + std::string(e.name);
  return names + " (each optionally followed by -VERSION, e.g. windows-server-2022)";
}

Result<std::string> parse_guest_edition(const std::string& text) {
  const std::string os = lower(text);
  if (find_edition(os)) return os;
  return make_error(ErrorKind::input, "guest OS '" + text.substr(0, 60) +
                                          "': not a known edition; expected one of " +
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
  if (!known && guest_os_of_edition(os) == GuestOs::kWindows) limit = 1;  // the strictest: Home
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
