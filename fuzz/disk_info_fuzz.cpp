// Fuzzes what topolab accepts of `qemu-img info --output=json` for a user's disk (redteam wave
// 2, orchestrator/libvirt/guestsource/disk_info.cpp). Beyond "no crash, no exception": an accepted
// image is always a qcow2 or raw file of 1 byte .. 64 TiB with no backing file, no external
// data file and no encryption, and every refusal is one line naming the disk.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "orchestrator/libvirt/guestsource/disk_info.hpp"

using topolab::guestsource::check_image_info;
using topolab::guestsource::DiskImage;
using topolab::guestsource::kMaxVirtualBytes;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const auto info = nlohmann::json::parse(text, nullptr, false);
  DiskImage d;
  auto r = check_image_info(info, "disk /x", d);
  if (!r) {
    if (r.error().message.rfind("disk /x: ", 0) != 0) std::abort();
    return 0;
  }
  if (d.format != "qcow2" && d.format != "raw") std::abort();
  if (d.virtual_bytes == 0 || d.virtual_bytes > kMaxVirtualBytes) std::abort();
  if (info.contains("backing-filename") || info.contains("full-backing-filename")) std::abort();
  if (info.contains("encrypted") && info["encrypted"] == true) std::abort();
  return 0;
}
