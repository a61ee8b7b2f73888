#pragma once
#include <filesystem>
#include <memory>
#include <string>

#include "common/result.hpp"
#include "orchestrator/experiment/backend.hpp"

namespace topolab::experiment {

struct BackendOptions {
  std::string connect_uri;             // guest backend: libvirt URI, empty = qemu:///system
  std::string accel = "auto";          // guest backend: auto | kvm | tcg
  std::filesystem::path agent_binary;  // empty: the agent built with topolab
};

Result<std::unique_ptr<Backend>> make_backend(BackendKind kind, const BackendOptions& options);

}  // namespace topolab::experiment
