#include "orchestrator/guest/image/windows_iso.hpp"

#include <unistd.h>

#include <cstring>
#include <random>

#include "common/file_io.hpp"
#include "common/process.hpp"
#include "orchestrator/base/install/install_paths.hpp"

namespace topolab::image {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kMaxExeBytes = 64u << 20;
constexpr const char* kIsoName = "topolab-agent-windows.iso";

// .cmd files need CRLF line ends for cmd.exe's labels and goto.
std::string crlf(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\n') out += '\r';
    out += c;
  }
  return out;
}

const char* kInstallCmd = R"(@echo off
rem Installs the topolab guest agent: copies topolab-agent.exe to %ProgramFiles%\topolab and
rem registers it as the automatic-start service "topolab-agent" (restarted on failure).
rem Run as Administrator, from the CD: D:\install.cmd
setlocal
set "DEST=%ProgramFiles%\topolab"
if not exist "%DEST%" mkdir "%DEST%" || goto :fail
if exist "%DEST%\topolab-agent.exe" "%DEST%\topolab-agent.exe" service uninstall >nul 2>&1
copy /y "%~dp0topolab-agent.exe" "%DEST%\topolab-agent.exe" >nul || goto :fail
"%DEST%\topolab-agent.exe" service install || goto :fail
echo topolab-agent installed. Log: %ProgramData%\topolab\agent.log
exit /b 0
:fail
echo topolab-agent install FAILED (run this as Administrator)
exit /b 1
)";

const char* kUninstallCmd = R"(@echo off
rem Stops and removes the topolab-agent service and its program folder (the log stays).
setlocal
set "DEST=%ProgramFiles%\topolab"
"%DEST%\topolab-agent.exe" service uninstall
del /q "%DEST%\topolab-agent.exe"
rmdir "%DEST%"
exit /b 0
)";

const char* kReadme = R"(topolab guest agent for Windows
===============================

topolab-agent.exe  the agent (64-bit, static: needs nothing installed)
install.cmd        run as Administrator: installs the agent as the service "topolab-agent"
uninstall.cmd      removes the service

Before installing: the virtio-win "VirtIO Serial Driver" (vioser) must be installed, so the
port \\.\Global\org.topolab.agent.0 exists (Device Manager: "VirtIO Serial Driver" under
System devices).

Check by hand (cmd as Administrator):
  topolab-agent.exe topology          the CPU topology Windows sees
  topolab-agent.exe run --list        the benchmarks
  topolab-agent.exe run sqrt --param n=100000
  sc query topolab-agent              the service's state
Log: %ProgramData%\topolab\agent.log

See docs/windows.md in the topolab sources.
)";

std::uint32_t read_le32(const std::string& b, std::size_t at) {
  std::uint32_t v = 0;
  std::memcpy(&v, b.data() + at, 4);
  return v;
}

// Beside the Linux agent, built or installed (install_paths()).
fs::path default_exe() { return install_paths().windows_agent; }

// A fresh private folder next to the ISO (same filesystem: the final rename is atomic).
Result<fs::path> make_staging(const fs::path& parent) {
  std::random_device rd;
  for (int i = 0; i < 16; ++i) {
    fs::path p = parent / (".topolab-iso-" + std::to_string(rd()));
    std::error_code ec;
    if (fs::create_directory(p, ec)) return p;
  }
  return make_error(ErrorKind::io, "cannot create a staging folder in " + parent.string());
}

Result<WindowsIso> write_iso(const fs::path& out_dir, const fs::path& stage,
                             const std::string& exe_bytes) {
  WindowsIso iso;
  const std::pair<const char*, std::string> files[] = {{"topolab-agent.exe", exe_bytes},
                                                       {"install.cmd", crlf(kInstallCmd)},
                                                       {"uninstall.cmd", crlf(kUninstallCmd)},
                                                       {"README.txt", crlf(kReadme)}};
  const fs::path content = stage / "cd";
  fs::create_directory(content);
  for (const auto& [name, bytes] : files) {
    TL_TRY(write_file_atomic(content / name, bytes,
                             std::string(name).ends_with(".exe") ? 0755 : 0644));
    iso.files.push_back(name);
  }
  const fs::path tmp = stage / kIsoName;
  // -J: Joliet names as Windows shows them; -r: sane permissions; no shell, argv only.
  TL_TRY_CTX(run_for_output(
                 ProcessSpec::in_path({"xorriso", "-as", "mkisofs", "-quiet", "-V", "TOPOLAB_AGENT",
                                       "-J", "-r", "-o", tmp.string(), content.string()},
                                      std::chrono::minutes(2))),
             "xorriso (apt-get install xorriso)");
  iso.iso = out_dir / kIsoName;
  std::error_code ec;
  fs::rename(tmp, iso.iso, ec);
  if (ec)
    return make_error(ErrorKind::io,
                      "rename " + tmp.string() + " -> " + iso.iso.string() + ": " + ec.message());
  iso.bytes = fs::file_size(iso.iso, ec);
  iso.agent_bytes = exe_bytes.size();
  return iso;
}

}  // namespace

Result<void> check_windows_exe(const std::string& b, const std::string& what) {
  if (b.size() < 0x40 || b[0] != 'M' || b[1] != 'Z')
    return make_error(ErrorKind::input, what + ": not a Windows program (no MZ header)");
  const std::uint32_t pe = read_le32(b, 0x3c);
  if (pe > b.size() - 6 || b.compare(pe, 4, std::string("PE\0\0", 4)) != 0)
    return make_error(ErrorKind::input, what + ": not a Windows PE image (no PE signature)");
  const auto machine = static_cast<std::uint16_t>(static_cast<unsigned char>(b[pe + 4]) |
                                                  static_cast<unsigned char>(b[pe + 5]) << 8);
  if (machine != 0x8664) {
    char hex[8];
    std::snprintf(hex, sizeof(hex), "0x%04x", machine);
    return make_error(ErrorKind::input, what + ": machine " + hex + " is not x86-64 (0x8664)");
  }
  return {};
}

Result<WindowsIso> build_windows_iso(const WindowsIsoOptions& options) {
  fs::path exe = options.agent_exe.empty() ? default_exe() : options.agent_exe;
  if (exe.empty())
    return make_error(ErrorKind::not_found, "no topolab-agent.exe given and none was built");
  auto exe_bytes = read_file(exe, kMaxExeBytes);
  if (!exe_bytes) {
    return exe_bytes.error().context(
        "topolab-agent.exe (built when x86_64-w64-mingw32-g++-posix is installed: "
        "scripts/setup.sh)");
  }
  TL_TRY(check_windows_exe(*exe_bytes, exe.string()));
  if (options.output_dir.empty())
    return make_error(ErrorKind::input, "no output folder given (-o DIR)");
  std::error_code ec;
  fs::create_directories(options.output_dir, ec);
  if (ec)
    return make_error(ErrorKind::io, "create " + options.output_dir.string() + ": " + ec.message());
  TL_ASSIGN(auto stage, make_staging(options.output_dir));
  auto iso = write_iso(options.output_dir, stage, *exe_bytes);
  fs::remove_all(stage, ec);  // success or not: only the finished ISO stays
  return iso;
}

}  // namespace topolab::image
