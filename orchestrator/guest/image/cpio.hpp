#pragma once
// Minimal newc ("070701") cpio archive writer and reader: the Linux initramfs format.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"

namespace topolab::image {

struct CpioEntry {
  std::string name;        // without leading '/', e.g. "init", "lib/modules/virtio.ko"
  std::uint32_t mode = 0;  // file type bits + permissions (S_IFREG | 0755, ...)
  std::string data;        // file content (regular files) or link target (symlinks)
  std::uint32_t rdev_major = 0, rdev_minor = 0;  // device nodes
};

class CpioWriter {
 public:
  void add_directory(const std::string& name, std::uint32_t perms = 0755);
  void add_file(const std::string& name, std::string data, std::uint32_t perms = 0644);
  void add_char_device(const std::string& name, std::uint32_t major, std::uint32_t minor,
                       std::uint32_t perms = 0600);
  // The archive with its TRAILER!!! entry.
  std::string finish() const;

 private:
  std::vector<CpioEntry> entries_;
};

// Reads an uncompressed newc archive back (stops at TRAILER!!!). Errors name the offset.
Result<std::vector<CpioEntry>> read_cpio(std::string_view archive);

}  // namespace topolab::image
