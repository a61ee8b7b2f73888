#include "common/terminal_text.hpp"

#include <cstdint>

#include "common/utf8.hpp"

namespace topolab {
namespace {

constexpr char kHex[] = "0123456789abcdef";

void hex_byte(std::string& out, unsigned char b) {
  out += "\\x";
  out += kHex[b >> 4];
  out += kHex[b & 15];
}

}  // namespace

std::string terminal_safe(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7F) {
      hex_byte(out, c);
      ++i;
      continue;
    }
    if (c < 0x80) {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    std::uint32_t cp = 0;
    const std::size_t len = utf8_sequence(text, i, cp);
    if (len == 0) {
      hex_byte(out, c);
      ++i;
    } else if (cp >= 0x80 && cp <= 0x9F) {  // C1 controls: CSI (U+009B) starts a sequence too
      out += "\\u00";
      out += kHex[cp >> 4];
      out += kHex[cp & 15];
      i += len;
    } else {
      out.append(text.substr(i, len));
      i += len;
    }
  }
  return out;
}

std::string bounded_text(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  const std::size_t tail = max_bytes / 4;
  const std::size_t head = max_bytes - tail;
  return std::string(text.substr(0, head)) + " ... [" + std::to_string(text.size() - head - tail) +
         " bytes cut] ... " + std::string(text.substr(text.size() - tail));
}

std::string display_text(std::string_view text, std::size_t max_bytes) {
  std::string out = terminal_safe(text);
  if (out.size() <= max_bytes) return out;
  std::size_t cut = max_bytes - 3;
  // terminal_safe's output is valid UTF-8: step back over continuation bytes (10xxxxxx).
  while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
  out.resize(cut);
  return out + "...";
}

std::string csv_formula_safe(std::string_view cell) {
  if (!cell.empty() && (cell[0] == '=' || cell[0] == '+' || cell[0] == '-' || cell[0] == '@' ||
                        cell[0] == '\t' || cell[0] == '\r'))
    return "'" + std::string(cell);
  return std::string(cell);
}

}  // namespace topolab
