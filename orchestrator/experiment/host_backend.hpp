#pragma once
// Bare-host baselines: the same benchmarks run by `topolab-agent --unix SOCK` started on the
// host (fork/exec, no shell) and driven with AgentClient. There is no guest, so only
// param.<bench>.<name> factors apply; pinning is a benchmark parameter (pin, cpus).
#include <filesystem>

#include "orchestrator/experiment/backend.hpp"
#include "orchestrator/experiment/hosts.hpp"

namespace topolab::experiment {

class HostBackend : public Backend {
 public:
  // agent_binary empty: install_paths().agent (the built or installed agent).
  // allow_host_settings: accept os.* factors and [os] (they change this machine). Not reachable
  // from the command line yet: --allow-host-settings needs every value restored on SIGINT and
  // SIGTERM too, and a killed run's agent dies by SIGKILL (PDEATHSIG) without restoring. Tests
  // use it with agents that change nothing real (a hostile agent, --settings-root).
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
