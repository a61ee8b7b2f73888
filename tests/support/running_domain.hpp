#pragma once
// For tests that interrupt a boot: waiting until the guest of a run is booting.
#include <chrono>
#include <string>
#include <thread>

#include "tests/support/child_process.hpp"

namespace topolab::testing {

// True once a topolab- domain whose name contains `marker` (the run id) is running on
// qemu:///system, false when none is by `timeout`.
inline bool wait_for_running_domain(const std::string& marker, std::chrono::milliseconds timeout) {
  auto conn = virt::open_connection("qemu:///system");
  if (!conn) return false;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    for (const auto& name : topolab_domains_with(marker)) {
      auto dom = virt::lookup_domain(conn->get(), name);
      if (dom && virDomainIsActive(dom->get()) == 1) return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

}  // namespace topolab::testing
