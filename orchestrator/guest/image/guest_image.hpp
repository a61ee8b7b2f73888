#pragma once
// The built-in guest image: a kernel plus a newc cpio initramfs holding the static
// topolab-agent as /init, the virtio modules it needs (dependency order from modules.dep) and
// /modules.order, the load order the agent follows as PID 1.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "common/result.hpp"

namespace topolab {

struct GuestImage {
  std::filesystem::path kernel, initrd;
  std::string cmdline;
  std::string agent_port_name = "org.topolab.agent.0";
  // Additive details (reports, `topolab image --json`):
  std::string kernel_version;
  std::vector<std::string> modules;  // in load order, names as in modules.dep
  std::uint64_t initrd_bytes = 0;
  std::string content_hash;  // of all inputs (agent, modules, kernel, cmdline)
  bool rebuilt = false;      // false: an identical image was already in output_dir
  // True: found through the inputs' stamp (image/input_stamp.hpp), no input file read.
  bool inputs_unchanged = false;
  // "pvh": `kernel` is the uncompressed vmlinux, entered through its PVH note (pvh_kernel.hpp);
  // "bzimage": the kernel as installed. pvh_fallback says why PVH was not used.
  std::string boot_protocol;
  std::string pvh_fallback;
  int pruned = 0;  // older image folders removed after this build (kKeptOldImages are kept)
};

struct ImageOptions {
  std::filesystem::path output_dir;    // empty: /var/cache/topolab/image
  std::filesystem::path kernel;        // empty: newest /boot/vmlinuz-*
  std::filesystem::path agent_binary;  // empty: install_paths().agent
  // Additive: where modules.dep lives; empty: /lib/modules/<version from the kernel file name>.
  std::filesystem::path modules_dir;
};

inline constexpr std::size_t kKeptOldImages = 3;
#ifdef TOPOLAB_CHAOS_HANG_FIRST_BOOT
// A chaos build's images (its agent hangs every first boot) never share the real cache, whose
// pruning would otherwise drop other builds' images.
inline constexpr const char* kDefaultImageDir = "/var/cache/topolab/image-chaos";
#else
inline constexpr const char* kDefaultImageDir = "/var/cache/topolab/image";
#endif
inline constexpr const char* kDefaultCmdline = "console=ttyS0 quiet panic=-1";
// Modules the agent needs to reach its virtio-serial port; dependencies are added from
// modules.dep. Modules built into the kernel (modules.builtin) are skipped.
std::vector<std::string> required_guest_modules();

Result<GuestImage> build_guest_image(const ImageOptions&);

// Newest /boot/vmlinuz-* by version order (exposed for tests and `topolab image`).
Result<std::filesystem::path> newest_kernel(const std::filesystem::path& boot_dir = "/boot");

}  // namespace topolab
