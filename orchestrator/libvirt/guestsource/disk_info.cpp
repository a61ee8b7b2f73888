#include "orchestrator/libvirt/guestsource/disk_info.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace topolab::guestsource {

const std::vector<std::string>& overlayable_formats() {
  static const std::vector<std::string> formats{"qcow2", "raw"};
  return formats;
}

namespace {

// An image topolab can overlay holds all its bytes itself, readable without a key, and sound:
// no backing chain, no encryption, no external data file, not marked corrupt.
Result<void> check_self_contained(const nlohmann::json& j, const std::string& shown) {
  // A backing file is opened (and relabelled by libvirt) although the user named only the top
  // image: a chain pointing at /etc/shadow or at another VM's disk would reach the guest.
  for (const char* key : {"backing-filename", "full-backing-filename"}) {
    if (j.contains(key)) {
      std::string b = j[key].is_string() ? j[key].get<std::string>() : "?";
      return make_error(ErrorKind::input,
                        shown + ": has a backing file '" + b.substr(0, 200) +
                            "': topolab overlays only self-contained images (flatten it with "
                            "qemu-img convert -O qcow2)");
    }
  }
  if (j.contains("encrypted") && j["encrypted"] == true)
    return make_error(ErrorKind::input,
                      shown +
                          ": encrypted: topolab cannot pass its key (decrypt it with "
                          "qemu-img convert)");
  const nlohmann::json* data = nullptr;
  if (j.contains("format-specific") && j["format-specific"].is_object() &&
      j["format-specific"].contains("data") && j["format-specific"]["data"].is_object())
    data = &j["format-specific"]["data"];
  if (data && data->contains("data-file"))
    return make_error(ErrorKind::input,
                      shown +
                          ": has an external data file: its bytes live in another file "
                          "(merge it with qemu-img convert -O qcow2)");
  if (data && data->contains("corrupt") && (*data)["corrupt"] == true)
    return make_error(ErrorKind::input,
                      shown + ": marked corrupt by QEMU (qemu-img check -r all repairs it)");
  return {};
}

}  // namespace

Result<void> check_image_info(const nlohmann::json& j, const std::string& shown, DiskImage& d) {
  if (!j.is_object() || !j.contains("format") || !j["format"].is_string())
    return make_error(ErrorKind::io, shown + ": qemu-img info printed no format");
  d.format = j["format"].get<std::string>();
  const auto& ok = overlayable_formats();
  if (std::find(ok.begin(), ok.end(), d.format) == ok.end()) {
    return make_error(ErrorKind::input,
                      shown + ": format '" + d.format.substr(0, 40) +
                          "' cannot be overlaid by topolab (supported: qcow2, raw; convert it with "
                          "qemu-img convert -O qcow2)");
  }
  TL_TRY(check_self_contained(j, shown));
  if (!j.contains("virtual-size") || !j["virtual-size"].is_number_unsigned())
    return make_error(ErrorKind::io, shown + ": qemu-img info printed no virtual size");
  d.virtual_bytes = j["virtual-size"].get<std::uint64_t>();
  if (d.virtual_bytes == 0)
    return make_error(ErrorKind::input, shown + ": virtual size 0 (nothing to boot)");
  // Below one sector no boot sector or partition table fits: a stray small file named as a
  // disk was overlaid and booted into the firmware's "no bootable device" (issue 32). QEMU
  // rounds a raw file's virtual size up to a sector, so a raw file's own size counts.
  const std::uint64_t held = d.format == "raw" && d.size_bytes != 0
                                 ? std::min(d.virtual_bytes, d.size_bytes)
                                 : d.virtual_bytes;
  if (held < kMinVirtualBytes)
    return make_error(
        ErrorKind::input,
        shown + ": " + std::to_string(held) +
            " bytes, smaller than one 512-byte sector: no partition table fits, not a "
            "disk");
  if (d.virtual_bytes > kMaxVirtualBytes)
    return make_error(ErrorKind::input, shown + ": virtual size " +
                                            std::to_string(d.virtual_bytes) +
                                            " bytes, over the limit of " +
                                            std::to_string(kMaxVirtualBytes) + " (64 TiB)");
  return {};
}

}  // namespace topolab::guestsource
