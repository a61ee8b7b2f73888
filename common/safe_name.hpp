#pragma once
// Names that become domain names, file names (the default store "<name>.db") and terminal
// text: a layout's or an experiment's `name` (redteam, issue 12). "../../x" became a store
// path outside the folder, "a\x1b[2J" a domain name and a file name with an escape sequence.
#include <cstddef>
#include <string>
#include <string_view>

namespace topolab {

inline constexpr std::size_t kMaxNameBytes = 128;

// "" when `name` is 1..kMaxNameBytes of [A-Za-z0-9._+-] not starting with '.' or '-';
// otherwise what is wrong, for "FIELD: <reason>".
std::string name_problem(std::string_view name);

// True when `text` holds a control character (C0, DEL): one line of plain text expected.
bool has_control_chars(std::string_view text);

}  // namespace topolab
