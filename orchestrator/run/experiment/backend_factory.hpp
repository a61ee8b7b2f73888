#pragma once
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "common/result.hpp"
#include "orchestrator/guest/remote/storage_pool.hpp"
#include "orchestrator/libvirt/virt/boot_watchdog.hpp"
#include "orchestrator/run/experiment/backend.hpp"

namespace topolab::experiment {

struct BackendOptions {
  std::string connect_uri;  // guest backend: libvirt URI, empty = qemu:///system
  // guest backend: how the host is named in the store, progress and reports (the URI as
  // written); empty: connect_uri. They differ for a file's URI, opened with no_tty=1.
  std::string host;
  std::string accel = "auto";          // guest backend: auto | kvm | tcg
  std::filesystem::path agent_binary;  // empty: the agent built with topolab
  bool allow_host_settings = false;    // host backend: os.* may change this host (restored)
  // guest backend: the agent's hello bound; unset: the guest kind's (boot_request.hpp).
  std::optional<int> hello_timeout_ms;
  int boot_retries =
      virt::kDefaultBootRetries;  // guest backend: boots of a hung guest retried (boot watchdog)
  int boot_watchdog_ms = 0;       // guest backend: the watchdog's bound; 0 derived, -1 off
  // guest backend, remote hosts: the pool the image is uploaded into (checked by the caller).
  remote::PoolSpec pool;
};

Result<std::unique_ptr<Backend>> make_backend(BackendKind kind, const BackendOptions& options);

}  // namespace topolab::experiment
