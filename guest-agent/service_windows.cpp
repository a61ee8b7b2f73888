// `topolab-agent.exe service install|uninstall|run`: the agent as a Windows service, so it
// starts at boot before anyone logs on (the Windows counterpart of the Linux image's /init and
// of topolab-agent.service). Log: %ProgramData%\topolab\agent.log.
#include <windows.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "common/exit_code.hpp"
#include "guest-agent/os.hpp"
#include "guest-agent/windows_support.hpp"

namespace topolab::agent::os {
namespace {

constexpr const wchar_t* kServiceName = L"topolab-agent";
constexpr const wchar_t* kDisplayName = L"topolab guest agent";
// The SCM and ExitProcess take a DWORD; the code is the table's (common/exit_code.hpp).
constexpr DWORD kServiceOk = static_cast<DWORD>(to_int(ExitCode::ok));
constexpr std::uintmax_t kMaxLogBytes = 8u << 20;  // then agent.log -> agent.log.1

const char* kServiceUsage =
    "usage: topolab-agent.exe service install [--no-poweroff]\n"
    "       topolab-agent.exe service uninstall\n"
    "       topolab-agent.exe service run [serve options]   (started by the SCM)\n";

struct ServiceState {
  SERVICE_STATUS_HANDLE handle = nullptr;
  const ServeFn* serve = nullptr;
  std::vector<char*> args;  // argv for serve: {exe, "service", "run", options...}
};
ServiceState g_service;

void report(DWORD state, DWORD exit_code) {
  SERVICE_STATUS s{};
  s.dwServiceType = SERVICE_WIN32_OWN_PROCESS;
  s.dwCurrentState = state;
  s.dwControlsAccepted =
      state == SERVICE_RUNNING ? SERVICE_ACCEPT_STOP | SERVICE_ACCEPT_SHUTDOWN : 0;
  if (exit_code != kServiceOk) {
    s.dwWin32ExitCode = ERROR_SERVICE_SPECIFIC_ERROR;
    s.dwServiceSpecificExitCode = exit_code;
  }
  if (g_service.handle) SetServiceStatus(g_service.handle, &s);
}

DWORD WINAPI on_control(DWORD control, DWORD, void*, void*) {
  if (control == SERVICE_CONTROL_STOP || control == SERVICE_CONTROL_SHUTDOWN) {
    // The serve loop blocks in a read with no timeout: put the settings back, report stopped
    // and leave.
    std::cerr << "topolab-agent: stopped by the service control manager\n";
    win::run_termination_hook();  // the power plan and CPMINCORES as they were
    std::cerr.flush();
    report(SERVICE_STOPPED, kServiceOk);
    ExitProcess(kServiceOk);
  }
  return control == SERVICE_CONTROL_INTERROGATE ? NO_ERROR : ERROR_CALL_NOT_IMPLEMENTED;
}

std::wstring log_folder() {
  wchar_t buf[MAX_PATH] = {};
  DWORD n = GetEnvironmentVariableW(L"ProgramData", buf, MAX_PATH);
  std::wstring base = (n > 0 && n < MAX_PATH) ? std::wstring(buf, n) : L"C:\\ProgramData";
  return base + L"\\topolab";
}

// std::cerr (the agent's log everywhere) goes to the log file, rotated once at kMaxLogBytes.
void redirect_log(std::ofstream& file) {
  std::wstring dir = log_folder();
  CreateDirectoryW(dir.c_str(), nullptr);
  std::wstring path = dir + L"\\agent.log";
  WIN32_FILE_ATTRIBUTE_DATA attrs{};
  if (GetFileAttributesExW(path.c_str(), GetFileExInfoStandard, &attrs) &&
      ((std::uintmax_t{attrs.nFileSizeHigh} << 32) | attrs.nFileSizeLow) > kMaxLogBytes) {
    MoveFileExW(path.c_str(), (path + L".1").c_str(), MOVEFILE_REPLACE_EXISTING);
  }
  file.open(std::filesystem::path(path), std::ios::app);
  if (file) std::cerr.rdbuf(file.rdbuf());
}

void WINAPI service_main(DWORD, LPWSTR*) {
  g_service.handle = RegisterServiceCtrlHandlerExW(kServiceName, on_control, nullptr);
  if (!g_service.handle) return;
  std::ofstream log;
  redirect_log(log);
  report(SERVICE_RUNNING, kServiceOk);
  int rc = (*g_service.serve)(static_cast<int>(g_service.args.size()), g_service.args.data(), 3);
  std::cerr << "topolab-agent: serve ended with " << rc << "\n";
  std::cerr.flush();
  // A non-zero code is a failure: the SCM's failure actions restart the service.
  report(SERVICE_STOPPED, static_cast<DWORD>(rc));
}

int run_service(int argc, char** argv, const ServeFn& serve) {
  g_service.serve = &serve;
  g_service.args.assign(argv, argv + argc);
  SERVICE_TABLE_ENTRYW table[] = {{const_cast<wchar_t*>(kServiceName), service_main},
                                  {nullptr, nullptr}};
  if (!StartServiceCtrlDispatcherW(table)) {
    std::fprintf(stderr, "topolab-agent: %s (is this started by the service manager?)\n",
                 win::last_error("StartServiceCtrlDispatcher").c_str());
    return to_int(ExitCode::failed);
  }
  return to_int(ExitCode::ok);
}

struct ScHandle {
  SC_HANDLE h;
  ~ScHandle() {
    if (h) CloseServiceHandle(h);
  }
};

int fail(const char* call) {
  std::fprintf(stderr, "topolab-agent service: %s\n", win::last_error(call).c_str());
  return to_int(ExitCode::failed);
}

int install(bool poweroff) {
  auto self = self_executable();
  if (!self)
    return std::fprintf(stderr, "topolab-agent service: %s\n", self.error().message.c_str()),
           to_int(ExitCode::failed);
  std::wstring command =
      L"\"" + win::widen(*self) + L"\" service run" + (poweroff ? L" --poweroff" : L"");
  ScHandle scm{OpenSCManagerW(nullptr, nullptr, SC_MANAGER_CREATE_SERVICE)};
  if (!scm.h) return fail("OpenSCManager (run as Administrator)");
  ScHandle svc{CreateServiceW(scm.h, kServiceName, kDisplayName, SERVICE_ALL_ACCESS,
                              SERVICE_WIN32_OWN_PROCESS, SERVICE_AUTO_START, SERVICE_ERROR_NORMAL,
                              command.c_str(), nullptr, nullptr, nullptr, nullptr, nullptr)};
  if (!svc.h) return fail("CreateService topolab-agent");
  SERVICE_DESCRIPTIONW description{const_cast<wchar_t*>(
      L"Reports the CPU topology Windows sees and runs topolab benchmarks for the host over "
      L"the virtio-serial port org.topolab.agent.0.")};
  ChangeServiceConfig2W(svc.h, SERVICE_CONFIG_DESCRIPTION, &description);
  // Restart after 2 s, 5 s, then every 30 s; the failure count resets after a day.
  SC_ACTION actions[] = {
      {SC_ACTION_RESTART, 2000}, {SC_ACTION_RESTART, 5000}, {SC_ACTION_RESTART, 30000}};
  SERVICE_FAILURE_ACTIONSW failure{86400, nullptr, nullptr, 3, actions};
  if (!ChangeServiceConfig2W(svc.h, SERVICE_CONFIG_FAILURE_ACTIONS, &failure))
    return fail("ChangeServiceConfig2 (failure actions)");
  // Also restart when the agent exits with an error code, not only when it crashes.
  SERVICE_FAILURE_ACTIONS_FLAG flag{TRUE};
  ChangeServiceConfig2W(svc.h, SERVICE_CONFIG_FAILURE_ACTIONS_FLAG, &flag);
  if (!StartServiceW(svc.h, 0, nullptr)) return fail("StartService topolab-agent");
  std::printf("topolab-agent: service installed (automatic start) and started: %s\n",
              win::narrow(command).c_str());
  return to_int(ExitCode::ok);
}

int uninstall() {
  ScHandle scm{OpenSCManagerW(nullptr, nullptr, SC_MANAGER_CONNECT)};
  if (!scm.h) return fail("OpenSCManager (run as Administrator)");
  ScHandle svc{OpenServiceW(scm.h, kServiceName, SERVICE_STOP | DELETE | SERVICE_QUERY_STATUS)};
  if (!svc.h) return fail("OpenService topolab-agent");
  SERVICE_STATUS status{};
  ControlService(svc.h, SERVICE_CONTROL_STOP, &status);  // not running is fine
  if (!DeleteService(svc.h)) return fail("DeleteService topolab-agent");
  std::printf("topolab-agent: service stopped and removed\n");
  return to_int(ExitCode::ok);
}

}  // namespace

std::optional<int> os_command(int argc, char** argv, const ServeFn& serve) {
  if (argc < 2 || std::string(argv[1]) != "service") return std::nullopt;
  const std::string action = argc > 2 ? argv[2] : "";
  if (action == "run") return run_service(argc, argv, serve);
  if (action == "install" && argc == 3) return install(true);
  if (action == "install" && argc == 4 && std::string(argv[3]) == "--no-poweroff")
    return install(false);
  if (action == "uninstall" && argc == 3) return uninstall();
  std::fputs(kServiceUsage, stderr);
  return to_int(ExitCode::usage);
}

}  // namespace topolab::agent::os
