#pragma once
// What the agent needs from the guest OS, behind one small interface: Linux now
// (platform_linux.cpp); a Windows port supplies another implementation of the same calls.
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

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

}  // namespace topolab::agent
