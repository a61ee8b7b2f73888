#pragma once
// A guest OS as a layout's [guest] os and the doctor's --guest-os name it (issue 28: read here,
// once, into a type the doctor uses): one of an OS's editions, optionally followed by
// "-VERSION" ("windows-pro", "windows-server-2022"), or an OS without edition rows ("linux").
// Windows client editions ignore CPUs on sockets beyond their licence (Home 1, Pro 2, Pro for
// Workstations 4), silently: what the doctor's exposure check warns about.
#include <optional>
#include <string>
#include <string_view>

#include "common/result.hpp"
#include "orchestrator/model/layout/guest_os.hpp"

namespace topolab {

struct GuestEdition {
  std::string written;        // as the file or option wrote it (the layout's identity)
  std::string name;           // lower case
  std::optional<GuestOs> os;  // the OS the name starts with (guest_os_of_edition); nullopt: none
  bool known = false;         // a row of the table, or an OS without rows, optionally -VERSION
  // Sockets its OS uses; 0: no limit. An unknown edition of an OS with rows ("windows-10") is
  // read as that OS's strictest edition (Windows: Home, 1), and the doctor says so.
  int socket_limit = 0;
  bool operator==(const GuestEdition&) const = default;
};

// What a layout's [guest] os says: any name of at most 64 letters, digits and - . _ (an
// unknown one is the doctor's finding, not an error: a layout may name an OS the table lacks).
Result<GuestEdition> read_guest_edition(std::string_view text);
// --guest-os: a known edition only, case-insensitive, else an input error listing them.
Result<GuestEdition> parse_guest_edition(std::string_view text);
// Every accepted name, for messages.
std::string known_guest_editions();

}  // namespace topolab
