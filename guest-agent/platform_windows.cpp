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

}  // namespace topolab::agent
