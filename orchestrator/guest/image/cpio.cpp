#include "orchestrator/guest/image/cpio.hpp"

#include <sys/stat.h>

#include "common/result.hpp"

namespace topolab::image {

namespace {

constexpr std::string_view kMagic = "070701";
constexpr std::string_view kTrailer = "TRAILER!!!";
constexpr std::size_t kHeaderBytes = 110;  // magic + 13 fields of 8 hex digits

Result<std::uint32_t> parse_hex(std::string_view field, std::size_t offset) {
  std::uint32_t v = 0;
  for (char c : field) {
    int d;
    if (c >= '0' && c <= '9') {
      d = c - '0';
    } else if (c >= 'A' && c <= 'F') {
      d = c - 'A' + 10;
    } else if (c >= 'a' && c <= 'f') {
      d = c - 'a' + 10;
    } else {
      return make_error(ErrorKind::input, "cpio header at offset " + std::to_string(offset) +
                                              ": non-hex digit in field '" + std::string(field) +
                                              "'");
    }
    v = (v << 4) | static_cast<std::uint32_t>(d);
  }
  return v;
}

std::size_t round4(std::size_t n) { return (n + 3) & ~std::size_t{3}; }

}  // namespace

void CpioWriter::add_directory(const std::string& name, std::uint32_t perms) {
  entries_.push_back({name, S_IFDIR | perms, {}, 0, 0});
}
void CpioWriter::add_file(const std::string& name, std::string data, std::uint32_t perms) {
  entries_.push_back({name, S_IFREG | perms, std::move(data), 0, 0});
}
void CpioWriter::add_char_device(const std::string& name, std::uint32_t major, std::uint32_t minor,
                                 std::uint32_t perms) {
  entries_.push_back({name, S_IFCHR | perms, {}, major, minor});
}

Result<std::vector<CpioEntry>> read_cpio(std::string_view archive) {
  std::vector<CpioEntry> entries;
  std::size_t pos = 0;
  for (;;) {
    if (archive.size() - pos < kHeaderBytes) {
      return make_error(ErrorKind::input,
                        "cpio: truncated header at offset " + std::to_string(pos));
    }
    std::string_view h = archive.substr(pos, kHeaderBytes);
    if (h.substr(0, 6) != kMagic) {
      return make_error(ErrorKind::input,
                        "cpio: bad magic at offset " + std::to_string(pos) + " (expected 070701)");
    }
    std::uint32_t f[13];
    for (int i = 0; i < 13; ++i) {
      TL_ASSIGN(auto v, parse_hex(h.substr(6 + 8 * i, 8), pos));
      f[i] = v;
    }
    const std::uint32_t mode = f[1], filesize = f[6], namesize = f[11];
    std::size_t name_at = pos + kHeaderBytes;
    if (namesize == 0 || archive.size() < name_at + namesize) {
      return make_error(ErrorKind::input,
                        "cpio: truncated name at offset " + std::to_string(name_at));
    }
    std::string name(archive.substr(name_at, namesize - 1));
    std::size_t data_at = round4(name_at + namesize);
    if (archive.size() < data_at + filesize) {
      return make_error(ErrorKind::input, "cpio: truncated data of '" + name + "' at offset " +
                                              std::to_string(data_at));
    }
    if (name == kTrailer) return entries;
    entries.push_back({name, mode, std::string(archive.substr(data_at, filesize)), f[9], f[10]});
    pos = round4(data_at + filesize);
  }
}

}  // namespace topolab::image
