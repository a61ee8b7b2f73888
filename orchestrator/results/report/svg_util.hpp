#pragma once
// Small helpers shared by the report's SVG pictures (svg_*.cpp): every string that reaches the
// page goes through esc(), which escapes XML/HTML metacharacters, drops control characters and
// caps the length, so a hostile store cannot inject markup or blow a label up to megabytes.
#include <cstddef>
#include <string>
#include <string_view>

namespace topolab::report::svg {

inline constexpr std::size_t kMaxLabelBytes = 120;

// Appends c, escaped for HTML/XML text and attributes (the one escaping table of the report).
void append_markup_escaped(std::string& out, char c);
// Escaped text, at most max_bytes of the input (cut on a UTF-8 boundary, "..." appended).
std::string esc(std::string_view s, std::size_t max_bytes = kMaxLabelBytes);
// Text (not one byte) escaped: append_markup_escaped per character, bytes that are not UTF-8 as
// U+FFFD, C1 and bidirectional controls named ("[U+202E]") instead of applied; controls below
// 0x20 become '?' unless keep_whitespace (then tab and line breaks stay, as HTML text allows).
void append_text_escaped(std::string& out, std::string_view s, bool keep_whitespace);
// The page's text escaping, uncut, line breaks kept: append_text_escaped into a new string.
std::string page_text(std::string_view s);
// Fixed-point number ("12.3"); "-" for NaN or infinity.
std::string num(double v, int precision = 1);
// Colour of guest group / chart series i (a colour-blind-safe ten-colour palette, repeating).
const char* palette(int i);
// The "(N more ... not drawn)" note every capped picture ends with.
std::string more_note(std::size_t n, std::string_view what);

}  // namespace topolab::report::svg
