#pragma once
// What the agent needs from the guest OS, behind one small interface: Linux now
// (platform_linux.cpp); a Windows port supplies another implementation of the same calls.
#include <chrono>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "host/host_topology.hpp"

namespace topolab::agent {

class Platform {
 public:
  virtual ~Platform() = default;
  virtual std::uint64_t uptime_ms() = 0;  // since guest boot
  virtual std::string kernel() = 0;       // e.g. "Linux 6.1.0-57-amd64"
  virtual std::string cpu_model() = 0;    // first "model name", "" when unknown
  // The guest-seen topology from the OS (sysfs on Linux).
  virtual Result<HostTopology> read_topology() = 0;
  virtual nlohmann::json topology_json(const HostTopology&) = 0;
  // True when the agent is the first process (the built-in image's /init).
  virtual bool is_init() = 0;
  // As init: mount proc/sys/devtmpfs and load the modules listed in modules_order. Problems
  // are logged and skipped: a missing module must not stop the agent from reporting.
  virtual void early_init(const std::string& modules_order, std::ostream& log) = 0;
  // Flushes filesystems and powers the machine off (as init) or asks the init system to.
  virtual void power_off(bool as_init) = 0;
};

std::unique_ptr<Platform> make_platform();

// ---- OS services the benchmarks need (free functions: bench code has no Platform object; a
// Windows port supplies its own platform_windows.cpp with the same functions) ----------------

// Bytes the guest can still allocate without swapping or waking the OOM killer (Linux:
// MemAvailable from /proc/meminfo; kernels before 3.14: MemFree + Buffers + Cached). An error
// when unknown: callers refuse to allocate rather than guess (as PID 1 an OOM kill panics).
Result<std::uint64_t> mem_available_bytes();

// One short-lived child for spawn-loop. Only the agent's own executable (program empty) or a
// path the caller has checked against its allow-list; never a shell.
struct SpawnRequest {
  std::string program;            // "" = this agent's executable (/proc/self/exe on Linux)
  std::vector<std::string> args;  // argv[1..]
  std::chrono::milliseconds timeout{10000};
};
// Starts the child with stdin, stdout and stderr on the null device (its output never reaches
// the console), waits at most request.timeout, kills it on expiry. Error on a failed start, a
// timeout ("... killed after N ms") or a non-zero exit.
Result<void> spawn_and_wait(const SpawnRequest& request);

}  // namespace topolab::agent
