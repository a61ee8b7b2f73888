// Windows side of platform.hpp: what the hello reports and how the guest powers off.
#include <windows.h>

#include "guest-agent/os.hpp"
#include "guest-agent/platform.hpp"
#include "guest-agent/windows_support.hpp"
#include "host/topology_json.hpp"

namespace topolab::agent {

namespace {

// Powering off needs SeShutdownPrivilege enabled in the token (LocalSystem holds it disabled).
bool enable_shutdown_privilege() {
  HANDLE token = nullptr;
  if (!OpenProcessToken(GetCurrentProcess(), TOKEN_ADJUST_PRIVILEGES | TOKEN_QUERY, &token))
    return false;
  TOKEN_PRIVILEGES tp{};
  tp.PrivilegeCount = 1;
  tp.Privileges[0].Attributes = SE_PRIVILEGE_ENABLED;
  bool ok = LookupPrivilegeValueW(nullptr, L"SeShutdownPrivilege", &tp.Privileges[0].Luid) &&
            AdjustTokenPrivileges(token, FALSE, &tp, 0, nullptr, nullptr) &&
            GetLastError() == ERROR_SUCCESS;
  CloseHandle(token);
  return ok;
}

class WindowsPlatform : public Platform {
 public:
  std::uint64_t uptime_ms() override { return GetTickCount64(); }
  std::string kernel() override { return win::windows_version(); }
  std::string cpu_model() override { return win::cpuid_brand(); }
  Result<HostTopology> read_topology() override { return os::read_local_topology(); }
  nlohmann::json topology_json(const HostTopology& t) override { return topology_to_json(t); }
  bool is_init() override { return false; }  // Windows has no agent-as-PID-1 mode
  void early_init(const std::string&, std::ostream&) override {}
  void power_off(bool) override {
    enable_shutdown_privilege();
    // Forced: a lab guest has no unsaved work, and a logged-on desktop must not veto it.
    InitiateSystemShutdownExW(nullptr, nullptr, 0, TRUE, FALSE,
                              SHTDN_REASON_MAJOR_OTHER | SHTDN_REASON_FLAG_PLANNED);
  }
};

}  // namespace

std::unique_ptr<Platform> make_platform() { return std::make_unique<WindowsPlatform>(); }

Result<std::uint64_t> mem_available_bytes() {
  MEMORYSTATUSEX m{};
  m.dwLength = sizeof(m);
  if (!GlobalMemoryStatusEx(&m))
    return make_error(ErrorKind::io, win::last_error("GlobalMemoryStatusEx"));
  return static_cast<std::uint64_t>(m.ullAvailPhys);
}

// CreateProcessW of the agent itself; no handles inherited (the agent's sockets stay its own)
// and no window: the child's output goes to a hidden console nobody reads.
Result<void> spawn_and_wait(const SpawnRequest& request) {
  if (!request.program.empty()) {
    return make_error(ErrorKind::input,
                      "program '" + request.program +
                          "' has no meaning on Windows: only the agent itself (program \"\") is "
                          "spawned there");
  }
  auto self = os::self_executable();
  if (!self) return self.error();
  std::wstring exe = win::widen(*self);
  std::wstring command = L"\"" + exe + L"\"";
  for (const auto& a : request.args) {
    if (a.find_first_of(" \t\"") != std::string::npos)
      return make_error(ErrorKind::input,
                        "spawn argument '" + a + "' needs quoting; not supported");
    command += L" " + win::widen(a);
  }
  STARTUPINFOW si{};
  si.cb = sizeof(si);
  PROCESS_INFORMATION pi{};
  if (!CreateProcessW(exe.c_str(), command.data(), nullptr, nullptr, FALSE, CREATE_NO_WINDOW,
                      nullptr, nullptr, &si, &pi)) {
    return make_error(ErrorKind::io, win::last_error(("CreateProcess " + *self).c_str()));
  }
  CloseHandle(pi.hThread);
  const auto ms = request.timeout.count();
  DWORD waited = WaitForSingleObject(pi.hProcess, ms < 0 ? INFINITE : static_cast<DWORD>(ms));
  if (waited != WAIT_OBJECT_0) {
    TerminateProcess(pi.hProcess, 1);
    WaitForSingleObject(pi.hProcess, 5000);
    CloseHandle(pi.hProcess);
    return make_error(ErrorKind::io,
                      "'" + *self + "' did not exit within " + std::to_string(ms) + " ms; killed");
  }
  DWORD code = 1;
  GetExitCodeProcess(pi.hProcess, &code);
  CloseHandle(pi.hProcess);
  if (code != 0)
    return make_error(ErrorKind::io, "'" + *self + "' exited with status " + std::to_string(code));
  return {};
}

}  // namespace topolab::agent
