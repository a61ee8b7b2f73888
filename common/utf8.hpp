#pragma once
// One UTF-8 decoder for the protocol's validity check and the terminal sanitiser.
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace topolab {

// Length (1..4) of the valid UTF-8 sequence starting at s[i] and its code point in `cp`, or 0
// when the bytes there are not UTF-8: a bad lead or continuation byte, a truncated sequence, an
// overlong form, a surrogate or a value past U+10FFFF.
inline std::size_t utf8_sequence(std::string_view s, std::size_t i, std::uint32_t& cp) {
  const auto c = static_cast<unsigned char>(s[i]);
  std::size_t len = 0;
  if (c < 0x80) {
    cp = c;
    return 1;
  } else if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
    cp = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    cp = c & 0x0F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  for (std::size_t k = 1; k < len; ++k) {
    const auto cc = static_cast<unsigned char>(s[i + k]);
    if ((cc & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (cc & 0x3F);
  }
  if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10FFFF ||
      (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  return len;
}

}  // namespace topolab
