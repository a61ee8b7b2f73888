#pragma once
// A minimal PNG reader for screenshots (8-bit RGB or RGBA, not interlaced, as Chromium writes
// them): chunks, IDAT inflated by the system zlib (libz.so.1, part of every Debian system;
// loaded at run time so the test executables need no new link dependency), rows unfiltered.
#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace topolab::testing {

struct Image {
  int width = 0, height = 0;
  std::vector<std::uint8_t> rgb;  // width * height * 3
  const std::uint8_t* at(int x, int y) const {
    return &rgb[(static_cast<std::size_t>(y) * static_cast<std::size_t>(width) +
                 static_cast<std::size_t>(x)) *
                3];
  }
};

namespace png_detail {

inline std::uint32_t be32(const std::string& s, std::size_t at) {
  return static_cast<std::uint32_t>(static_cast<std::uint8_t>(s[at])) << 24 |
         static_cast<std::uint32_t>(static_cast<std::uint8_t>(s[at + 1])) << 16 |
         static_cast<std::uint32_t>(static_cast<std::uint8_t>(s[at + 2])) << 8 |
         static_cast<std::uint32_t>(static_cast<std::uint8_t>(s[at + 3]));
}

inline int paeth(int a, int b, int c) {
  const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

}  // namespace png_detail

// Decodes `png`; on failure returns false and says why in `error`.
inline bool decode_png(const std::string& png, Image& img, std::string& error) {
  using png_detail::be32;
  if (png.size() < 8 || png.compare(1, 3, "PNG") != 0) return error = "not a PNG", false;
  std::string idat;
  int depth = 0, colour = 0, interlace = 0;
  for (std::size_t at = 8; at + 12 <= png.size();) {
    const std::uint32_t len = be32(png, at);
    const std::string type = png.substr(at + 4, 4);
    if (at + 12 + len > png.size()) return error = "truncated chunk " + type, false;
    if (type == "IHDR") {
      img.width = static_cast<int>(be32(png, at + 8));
      img.height = static_cast<int>(be32(png, at + 12));
      depth = static_cast<std::uint8_t>(png[at + 16]);
      colour = static_cast<std::uint8_t>(png[at + 17]);
      interlace = static_cast<std::uint8_t>(png[at + 20]);
    } else if (type == "IDAT") {
      idat.append(png, at + 8, len);
    }
    at += 12 + len;
  }
  if (depth != 8 || (colour != 2 && colour != 6) || interlace != 0 || img.width <= 0 ||
      img.height <= 0 || img.width > 20000 || img.height > 20000)
    return error = "unsupported PNG (depth " + std::to_string(depth) + ", colour type " +
                   std::to_string(colour) + ")",
           false;
  using Uncompress = int (*)(unsigned char*, unsigned long*, const unsigned char*, unsigned long);
  void* z = dlopen("libz.so.1", RTLD_NOW);
  auto uncompress = z ? reinterpret_cast<Uncompress>(dlsym(z, "uncompress")) : nullptr;
  if (!uncompress) return error = "libz.so.1 not found", false;
  const std::size_t bpp = colour == 6 ? 4 : 3;
  const std::size_t stride = static_cast<std::size_t>(img.width) * bpp;
  std::vector<std::uint8_t> raw((stride + 1) * static_cast<std::size_t>(img.height));
  unsigned long raw_len = raw.size();
  const int rc = uncompress(raw.data(), &raw_len,
                            reinterpret_cast<const unsigned char*>(idat.data()), idat.size());
  dlclose(z);
  if (rc != 0 || raw_len != raw.size()) return error = "zlib error " + std::to_string(rc), false;
  std::vector<std::uint8_t> prev(stride, 0), cur(stride);
  img.rgb.resize(static_cast<std::size_t>(img.width) * static_cast<std::size_t>(img.height) * 3);
  for (int y = 0; y < img.height; ++y) {
    const std::uint8_t* row = &raw[static_cast<std::size_t>(y) * (stride + 1)];
    const int filter = row[0];
    for (std::size_t i = 0; i < stride; ++i) {
      const int a = i >= bpp ? cur[i - bpp] : 0, b = prev[i], c = i >= bpp ? prev[i - bpp] : 0;
      int v = row[i + 1];
      switch (filter) {
        case 1:
          v += a;
          break;
        case 2:
          v += b;
          break;
        case 3:
          v += (a + b) / 2;
          break;
        case 4:
          v += png_detail::paeth(a, b, c);
          break;
        default:
          break;
      }
      cur[i] = static_cast<std::uint8_t>(v);
    }
    for (int x = 0; x < img.width; ++x)
      for (int k = 0; k < 3; ++k)
        img.rgb[(static_cast<std::size_t>(y) * static_cast<std::size_t>(img.width) +
                 static_cast<std::size_t>(x)) *
                    3 +
                static_cast<std::size_t>(k)] =
            cur[static_cast<std::size_t>(x) * bpp + static_cast<std::size_t>(k)];
    std::swap(prev, cur);
  }
  return true;
}

}  // namespace topolab::testing
