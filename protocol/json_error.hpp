#pragma once
// Where a JSON text stops being JSON: "at offset 41: unexpected end of input", so a truncated
// or hand-edited document names the byte to look at, not only "not valid JSON".
#include <string>
#include <string_view>

namespace topolab::protocol {

// Empty when TEXT parses; else "at offset N: WHAT" (N = bytes read when the parser gave up).
std::string json_syntax_error(std::string_view text);

}  // namespace topolab::protocol
