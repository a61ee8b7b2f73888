#pragma once
// Text from outside (a guest's result unit, an agent's error message, a console tail, a stored
// label) reaches terminals through one function (issue 12, class 8): C0 controls (newline and
// tab included), DEL, C1 controls (U+0080..U+009F) and bytes that are not valid UTF-8 become
// visible escapes ("\x1b", "\u009b", "\xff"), so no escape sequence from a guest can move the
// cursor, retitle the window or hide text. Valid printable UTF-8 passes unchanged.
#include <iterator>
#include <string>
#include <string_view>

namespace topolab {

std::string terminal_safe(std::string_view text);

// An error message echoes what it refuses (a path, an option value, a name); a 1 MB option
// value was printed in full (redteam wave 2). Text longer than `max_bytes` keeps its head and
// its tail around "... [N bytes cut] ...", so the reason at either end stays readable.
inline constexpr std::size_t kMaxMessageBytes = 2048;
std::string bounded_text(std::string_view text, std::size_t max_bytes = kMaxMessageBytes);

// Free text kept in a typed value (a CPU model name, a topology's source): terminal_safe, then
// cut at a character boundary to at most `max_bytes` (>= 4) ending in "...". Idempotent, so a
// value read back from its own JSON is unchanged; safe in every printer and in JSON (redteam
// wave 4: cpuinfo's model name reached terminals raw and ended `host --json` with exit 70).
std::string display_text(std::string_view text, std::size_t max_bytes);

// A CSV cell that a spreadsheet would evaluate as a formula (first character '=', '+', '-',
// '@', tab or carriage return; OWASP "CSV injection") gets a leading apostrophe. The value is
// returned unquoted: CSV quoting is the writer's job.
std::string csv_formula_safe(std::string_view cell);

// "a", "a or b", "a, b or c": the accepted values as an error message lists them (the guest
// OSes, the report formats, a URI's transports; one spelling everywhere).
template <class Names>
std::string join_choices(const Names& names) {
  std::string out;
  const auto n = std::size(names);
  std::size_t i = 0;
  for (const auto& name : names) {
    out += i == 0 ? "" : i + 1 == n ? " or " : ", ";
    out += std::string_view(name);
    ++i;
  }
  return out;
}

}  // namespace topolab
