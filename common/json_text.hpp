#pragma once
// Every JSON text the project writes (a stored column, a protocol line, a file, a `--json`
// printer, a value quoted in an error) goes through these two. Its strings come from files,
// paths, the host and guests: bytes that are not UTF-8 become U+FFFD instead of nlohmann's
// default exception (type_error.316), which ended commands with exit 70, some after the work
// had been done (redteam wave 4, the store and the KVM-probe cache). Valid UTF-8 is written as
// it is (not \u-escaped), so the output is unchanged for every valid input.
#include <nlohmann/json.hpp>
#include <string>

namespace topolab {

// Compact, on one line, without a newline: a stored column, a protocol line, an excerpt.
inline std::string json_line(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Indented by two and ending in a newline: the whole text of a file or of a `--json` printer.
inline std::string json_document(const nlohmann::json& j) {
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace topolab
