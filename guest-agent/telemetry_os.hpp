#pragma once
// The OS calls behind a run's telemetry (issue 26): CPU times, context switches, the current CPU
// of every thread of this process, the kernel's migration counter. telemetry_os_linux.cpp uses
// getrusage, /proc/self/task and perf_event_open; telemetry_os_windows.cpp GetProcessTimes and
// says why the rest is not available there.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"

namespace topolab::agent::os {

struct ProcessCpuTimes {
  double user_s = 0;
  double sys_s = 0;
  // Whole-process counts; nullopt where the OS gives none (ctx_switches_why says why).
  std::optional<std::uint64_t> voluntary_switches, involuntary_switches;
};
Result<ProcessCpuTimes> process_cpu_times();
// Why context switches are missing on this OS ("" where process_cpu_times gives them).
std::string ctx_switches_why();

std::int64_t current_thread_id();

struct ThreadCpu {
  std::int64_t tid = 0;
  int cpu = -1;
};
// The CPU each thread of this process last ran on, at most `max_threads` of them (Linux:
// /proc/self/task/TID/stat field 39). An error where the OS cannot tell another thread's CPU.
Result<std::vector<ThreadCpu>> thread_cpus(std::size_t max_threads);

// The kernel's count of CPU migrations of the calling thread and the threads it creates after
// the call (Linux perf_event_open, software event CPU_MIGRATIONS, inherited). The counter is an
// opaque handle; an error says why there is none (no perf events in the kernel, paranoid level).
Result<std::int64_t> start_migration_counter();
Result<std::uint64_t> stop_migration_counter(std::int64_t handle);

}  // namespace topolab::agent::os
