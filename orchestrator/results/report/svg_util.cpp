#include "orchestrator/results/report/svg_util.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>

#include "common/utf8.hpp"

namespace topolab::report::svg {

void append_markup_escaped(std::string& out, char c) {
  switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&#39;";
      break;
    default:
      // C0 controls other than tab and line breaks, and DEL, are not allowed in XML or HTML
      // text; an ESC from a store reached a terminal that printed the HTML (redteam wave 3).
      out += ((static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') ||
              c == 0x7f)
                 ? '?'
                 : c;
  }
}

namespace {

// C1 controls and the bidirectional controls (embeddings, overrides, isolates and marks): a
// stored label holding U+202E would show its text reversed, and whatever follows it in the
// same line, so the reader sees another value than the store holds (the "Trojan Source" trick).
bool hidden_code_point(std::uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9F) || cp == 0x061C || cp == 0x200E || cp == 0x200F ||
         (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

// "[U+202E]": the character is named, not applied.
std::string visible_code_point(std::uint32_t cp) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "[U+%04X]", static_cast<unsigned>(cp));
  return buf;
}

}  // namespace

void append_text_escaped(std::string& out, std::string_view s, bool keep_whitespace) {
  for (std::size_t i = 0; i < s.size();) {
    std::uint32_t cp = 0;
    const std::size_t len = utf8_sequence(s, i, cp);
    if (len == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD: a byte that is not UTF-8 would make the page invalid
      ++i;
    } else if (len == 1) {
      // Control characters are not allowed in XML text: shown as '?' (append_markup_escaped
      // keeps tab and line breaks, which HTML text may hold).
      const bool control = cp < 0x20 || cp == 0x7f;
      append_markup_escaped(out, control && !keep_whitespace ? '?' : s[i]);
      ++i;
    } else {
      out += hidden_code_point(cp) ? visible_code_point(cp) : std::string(s.substr(i, len));
      i += len;
    }
  }
}

std::string page_text(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  append_text_escaped(out, s, /*keep_whitespace=*/true);
  return out;
}

std::string esc(std::string_view s, std::size_t max_bytes) {
  bool cut = false;
  if (s.size() > max_bytes) {
    std::size_t n = max_bytes;
    // Back up over UTF-8 continuation bytes so a character is never split.
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
    s = s.substr(0, n);
    cut = true;
  }
  std::string out;
  out.reserve(s.size() + 8);
  append_text_escaped(out, s, /*keep_whitespace=*/false);
  if (cut) out += "...";
  return out;
}

std::string num(double v, int precision) {
  if (!std::isfinite(v)) return "-";
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", precision, v);
  return buf;
}

const char* palette(int i) {
  // Tableau 10.
  static const char* const kColours[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
                                         "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
  return kColours[static_cast<unsigned>(i) % 10];
}

std::string more_note(std::size_t n, std::string_view what) {
  return "(" + std::to_string(n) + " more " + std::string(what) + " not drawn)";
}

}  // namespace topolab::report::svg
