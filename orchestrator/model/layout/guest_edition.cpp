#include "orchestrator/model/layout/guest_edition.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

#include "orchestrator/model/layout/layout_text.hpp"

namespace topolab {
namespace {

// An edition of a guest OS whose socket limit differs by edition, named "<os>-<edition>".
struct EditionRow {
  GuestOs os;
  const char* edition;
  int socket_limit;  // 0: no limit
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
constexpr std::size_t kMaxNameSize = 64;

struct Edition {
  std::string name;  // "windows-home", "linux"
  int socket_limit;
};

bool has_edition_rows(GuestOs os) {
  return std::any_of(std::begin(kEditionRows), std::end(kEditionRows),
                     [os](const EditionRow& r) { return r.os == os; });
}

// The strictest limit of an OS's rows: what an unknown edition of it is read as.
int strictest_limit(GuestOs os) {
  int limit = 0;
  for (const auto& r : kEditionRows)
    if (r.os == os && r.socket_limit > 0 && (limit == 0 || r.socket_limit < limit))
      limit = r.socket_limit;
  return limit;
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

bool is_version(std::string_view v) {
  return !v.empty() && v.size() <= 16 && std::all_of(v.begin(), v.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.';
  });
}

// The edition NAME is, or is followed by "-VERSION" ("windows-server-2022"); none otherwise.
const Edition* find_edition(std::string_view os) {
  for (const auto& e : editions()) {
    const std::string_view name = e.name;
    if (os == name) return &e;
    if (os.size() > name.size() + 1 && os.substr(0, name.size()) == name &&
        os[name.size()] == '-' && is_version(os.substr(name.size() + 1))) {
      return &e;
    }
  }
  return nullptr;
}

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_';
}

}  // namespace

std::string known_guest_editions() {
  std::string names;
  for (const auto& e : editions()) names += (names.empty() ? "" : ", ") + std::string(e.name);
  return names + " (each optionally followed by -VERSION, e.g. windows-server-2022)";
}

Result<GuestEdition> read_guest_edition(std::string_view text) {
  if (text.empty() || text.size() > kMaxNameSize ||
      !std::all_of(text.begin(), text.end(), is_name_char)) {
    return make_error(ErrorKind::input,
                      "guest OS: expected a name of at most " + std::to_string(kMaxNameSize) +
                          " letters, digits, - . _ such as " + known_guest_editions());
  }
  GuestEdition g{std::string(text), layout_text::lower(text), std::nullopt, false, 0};
  g.os = guest_os_of_edition(g.name);
  if (const Edition* e = find_edition(g.name)) {
    g.known = true;
    g.socket_limit = e->socket_limit;
  } else if (g.os) {
    g.socket_limit = strictest_limit(*g.os);
  }
  return g;
}

Result<GuestEdition> parse_guest_edition(std::string_view text) {
  auto g = read_guest_edition(text);
  if (g && g->known) return g;
  return make_error(ErrorKind::input, "guest OS '" + std::string(text.substr(0, 60)) +
                                          "': not a known edition; expected one of " +
                                          known_guest_editions());
}

}  // namespace topolab
