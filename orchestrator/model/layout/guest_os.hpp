#pragma once
// The guest's operating system's names (issue 28; the enum is protocol/guest_os.hpp, shared with
// the agents). A disk guest's --os and
// [guest] os (guestsource/: picks templates/domains/<name>-disk.xml), the layout's [guest] os
// (an edition of one of these OSes) and the doctor's editions all read this table, so a new
// guest OS on the host is one row of kGuestOsNames (its agent is guest-agent/*_<os>.cpp).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "protocol/guest_os.hpp"

namespace topolab {

struct GuestOsName {
  GuestOs os;
  std::string_view name;  // as written in files and options, lower case
};
inline constexpr GuestOsName kGuestOsNames[] = {
    {GuestOs::kLinux, "linux"},
    {GuestOs::kWindows, "windows"},
};

std::string_view to_string(GuestOs os);
// The OS `name` names exactly ("linux"); nullopt for any other text.
std::optional<GuestOs> find_guest_os(std::string_view name);
// find_guest_os, else an input error naming the accepted names
// ("guest os 'X': expected linux or windows").
Result<GuestOs> parse_guest_os(std::string_view name);
// Every name, in table order: the CLI's --os choices.
std::vector<std::string> guest_os_names();
// The OS an edition name (lower case) starts with: "windows-pro" and "windows10" -> kWindows,
// "linux" -> kLinux; nullopt when it starts with no OS's name ("freebsd").
std::optional<GuestOs> guest_os_of_edition(std::string_view edition);

}  // namespace topolab
