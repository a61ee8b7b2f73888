#pragma once
// `topolab image --windows`: a CD image that carries the Windows guest agent into a guest with
// no network: topolab-agent.exe, install.cmd / uninstall.cmd (register or remove the service)
// and README.txt, written with xorriso (ISO 9660 + Joliet, volume TOPOLAB_AGENT).
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "common/result.hpp"

namespace topolab::image {

struct WindowsIsoOptions {
  std::filesystem::path output_dir;  // the ISO is output_dir/topolab-agent-windows.iso
  std::filesystem::path agent_exe;   // empty: install_paths().windows_agent
};

struct WindowsIso {
  std::filesystem::path iso;
  std::vector<std::string> files;  // names on the CD, in its root
  std::uint64_t bytes = 0;
  std::uint64_t agent_bytes = 0;
};

// The .exe must be a 64-bit (x86-64) Windows PE image: anything else is refused, so a Linux
// agent or a truncated file never ends up on the CD. The ISO appears only when complete (a
// temporary name renamed into place); a failure leaves nothing behind.
Result<WindowsIso> build_windows_iso(const WindowsIsoOptions& options);

// Checks PE headers: "MZ", e_lfanew in bounds, "PE\0\0", machine 0x8664 (x86-64).
Result<void> check_windows_exe(const std::string& bytes, const std::string& what);

}  // namespace topolab::image
