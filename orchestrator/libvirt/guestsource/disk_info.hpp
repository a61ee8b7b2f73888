#pragma once
// What topolab accepts of `qemu-img info --output=json` for a user's disk (redteam wave 2), pure
// so that it is unit-tested and fuzzed (fuzz/disk_info_fuzz.cpp) without qemu-img.
#include <cstdint>
#include <filesystem>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "common/result.hpp"

namespace topolab::guestsource {

struct DiskImage {
  std::filesystem::path path;       // canonical
  std::string format;               // "qcow2" or "raw"
  std::uint64_t size_bytes = 0;     // of the file
  std::uint64_t virtual_bytes = 0;  // of the disk the guest sees
  long long mtime_s = 0;
  bool block_device = false;  // the opened descriptor's type (not the name's)
};

// Formats a qcow2 overlay can sit on (the backing format is named with -F).
const std::vector<std::string>& overlayable_formats();

// 64 TiB: beyond any disk a topology experiment boots, and QEMU's own qcow2 limit with the
// default cluster size.
inline constexpr std::uint64_t kMaxVirtualBytes = 64ull << 40;
inline constexpr std::uint64_t kMinVirtualBytes = 512;  // one sector: an MBR

// Validates `qemu-img info --output=json` of the image `shown` ("disk PATH") and fills format
// and virtual_bytes; one-line error otherwise. Pure (fuzzed: fuzz/disk_info_fuzz.cpp).
Result<void> check_image_info(const nlohmann::json& info, const std::string& shown, DiskImage& out);

}  // namespace topolab::guestsource
