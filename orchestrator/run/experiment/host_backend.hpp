#pragma once
// Bare-host baselines: the same benchmarks run by `topolab-agent --unix SOCK` started on the
// host (fork/exec, no shell) and driven with AgentClient. There is no guest, so only
// param.<bench>.<name> factors apply; pinning is a benchmark parameter (pin, cpus).
#include <filesystem>

#include "orchestrator/run/experiment/backend.hpp"
#include "orchestrator/run/experiment/hosts.hpp"

namespace topolab::experiment {

class HostBackend : public Backend {
 public:
  // agent_binary empty: install_paths().agent (the built or installed agent).
  // allow_host_settings (`topolab run --allow-host-settings`): accept os.* factors and [os];
  // they change this machine, through the agent's own settings code (one implementation with
  // the guests'), and the agent puts every changed value back on every exit but its own
  // SIGKILL: session end, shutdown, SIGTERM from the runner's teardown or signal watcher, and
  // the runner's death (host_backend.cpp, HostTarget::spawn).
  explicit HostBackend(std::filesystem::path agent_binary = {}, bool allow_host_settings = false);
  std::string name() const override { return "host"; }
  Result<void> prepare(const Experiment&, const std::vector<Configuration>&) override;
  Result<std::unique_ptr<Target>> start(const Experiment&, const Configuration&) override;
  nlohmann::json host_topology() const override { return host_topology_; }
  nlohmann::json versions() const override;
  nlohmann::json context() const override { return {{"backend", "host"}}; }
  std::string host() const override { return kLocalHost; }

 private:
  std::filesystem::path agent_;
  bool allow_host_settings_ = false;
  nlohmann::json host_topology_;
  nlohmann::json agent_versions_ = nlohmann::json::object();
};

}  // namespace topolab::experiment
