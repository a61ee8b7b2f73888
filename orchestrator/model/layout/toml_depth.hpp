#pragma once
// The one gate every TOML file passes before toml++ sees it. toml++ recurses on nesting (tables
// from dotted keys and headers, arrays, inline tables) and crashed with a stack overflow on
// ~40 000 levels (80 KB); topolab's own walkers recursed too. The check scans the raw text once,
// without recursion, and refuses anything nested deeper than kMaxTomlDepth.
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace topolab {

// Real layouts and experiments nest 3-4 levels ("[factors]" > "param.sqrt" > "n" > array).
inline constexpr int kMaxTomlDepth = 64;

// Depth as toml++ would build it: a top-level key is 1; every dotted-key segment, table-header
// segment ([a.b] is 2, [[a.b]] is 3: the array of tables adds one), array and inline table
// inside it adds 1. Counted outside strings and comments; conservative (a float's '.' may count
// once). Error: "ORIGIN:LINE: TOML nested deeper than 64 levels ...".
Result<void> check_toml_depth(std::string_view text, const std::string& origin,
                              int max_depth = kMaxTomlDepth);

}  // namespace topolab
