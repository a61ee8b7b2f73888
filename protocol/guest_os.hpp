#pragma once
// The guest's operating system (issue 28): one enum for both sides. The orchestrator reads it
// from a disk guest's --os, a layout's edition and the doctor's table (the names are in
// orchestrator/model/layout/guest_os.hpp); the protocol's guest settings say which OS each row
// applies to, and each agent names its own. It lives here, in the protocol both sides build,
// because the agents cannot include the orchestrator's folders.
#include <string_view>

namespace topolab {

enum class GuestOs { kLinux, kWindows };

// "Linux", "Windows": the OS as a message about a guest names it.
// A switch, not a ternary: a new enumerator without its name is a -Wswitch warning here.
inline std::string_view display_name(GuestOs os) {
  switch (os) {
    case GuestOs::kLinux:
      return "Linux";
    case GuestOs::kWindows:
      return "Windows";
  }
  return "?";
}

}  // namespace topolab
