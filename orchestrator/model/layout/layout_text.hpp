#pragma once
// Small text helpers the layout value parsers share (layout.cpp, layout_fields.cpp).
#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace topolab::layout_text {

// A layout value that a lower parser (CpuList) refused is refused input, whatever kind that
// parser gave it (exit code 1 either way; callers may branch on the kind).
inline Error as_input(Error e) {
  e.kind = ErrorKind::input;
  return e;
}

inline std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

inline std::string_view trim(std::string_view s) {
  const char* ws = " \t\r\n";
  auto b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

}  // namespace topolab::layout_text
