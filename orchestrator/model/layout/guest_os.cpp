#include "orchestrator/model/layout/guest_os.hpp"

#include "common/terminal_text.hpp"

namespace topolab {

std::string_view to_string(GuestOs os) {
  for (const auto& row : kGuestOsNames)
    if (row.os == os) return row.name;
  return "?";
}

std::optional<GuestOs> find_guest_os(std::string_view name) {
  for (const auto& row : kGuestOsNames)
    if (row.name == name) return row.os;
  return std::nullopt;
}

std::vector<std::string> guest_os_names() {
  std::vector<std::string> out;
  for (const auto& row : kGuestOsNames) out.emplace_back(row.name);
  return out;
}

Result<GuestOs> parse_guest_os(std::string_view name) {
  if (auto os = find_guest_os(name)) return *os;
  return make_error(ErrorKind::input, "guest os '" + std::string(name.substr(0, 40)) +
                                          "': expected " + join_choices(guest_os_names()));
}

std::optional<GuestOs> guest_os_of_edition(std::string_view edition) {
  for (const auto& row : kGuestOsNames)
    if (edition.substr(0, row.name.size()) == row.name) return row.os;
  return std::nullopt;
}

}  // namespace topolab
