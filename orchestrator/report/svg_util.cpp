#include "orchestrator/report/svg_util.hpp"

#include <cmath>
#include <cstdio>

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
  for (char c : s) {
    // Control characters are not allowed in XML text: shown as '?'.
    append_markup_escaped(out, (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c);
  }
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
