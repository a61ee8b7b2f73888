// Windows side of telemetry_os.hpp: GetProcessTimes; the rest is not offered by Win32.
#include <windows.h>

#include "guest-agent/telemetry_os.hpp"
#include "guest-agent/windows_support.hpp"

namespace topolab::agent::os {

namespace {

double filetime_seconds(const FILETIME& t) {
  const auto ticks = (static_cast<std::uint64_t>(t.dwHighDateTime) << 32) | t.dwLowDateTime;
  return static_cast<double>(ticks) * 1e-7;  // 100 ns units
}

}  // namespace

Result<ProcessCpuTimes> process_cpu_times() {
  FILETIME created{}, exited{}, kernel{}, user{};
  if (!GetProcessTimes(GetCurrentProcess(), &created, &exited, &kernel, &user))
    return make_error(ErrorKind::io, win::error_text("GetProcessTimes", GetLastError()));
  ProcessCpuTimes t;
  t.user_s = filetime_seconds(user);
  t.sys_s = filetime_seconds(kernel);
  return t;
}

std::string ctx_switches_why() {
  return "Windows gives no per-process context-switch count (only per thread through "
         "NtQuerySystemInformation, which the agent does not use)";
}

std::int64_t current_thread_id() { return static_cast<std::int64_t>(GetCurrentThreadId()); }

Result<std::vector<ThreadCpu>> thread_cpus(std::size_t) {
  return make_error(
      ErrorKind::not_found,
      "Windows tells a thread only its own CPU (GetCurrentProcessorNumberEx), not another "
      "thread's");
}

Result<std::int64_t> start_migration_counter() {
  return make_error(ErrorKind::not_found, "Windows has no kernel migration counter for a process");
}

Result<std::uint64_t> stop_migration_counter(std::int64_t) { return std::uint64_t{0}; }

}  // namespace topolab::agent::os
