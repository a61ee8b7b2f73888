#pragma once
// Where an experiment's benchmarks run: a booted guest per configuration (GuestBackend) or the
// agent on the bare host (HostBackend). The runner only sees this interface.
#include <chrono>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "common/result.hpp"
#include "orchestrator/run/experiment/matrix.hpp"
#include "protocol/benchmark_result.hpp"
#include "protocol/guest_settings.hpp"

namespace topolab::experiment {

// How long applying a cell's guest settings may take (SMT changes hotplug CPUs: seconds under
// TCG). A configure that uses all of it found a guest that stopped answering (HostRun::execute).
inline constexpr std::chrono::seconds kConfigureTimeout{60};

// One started configuration: a booted guest or a host agent process.
class Target {
 public:
  virtual ~Target() = default;
  // A result is validated before it gets here (protocol::validate_result): an invalid one is
  // an error of this run only.
  virtual Result<protocol::BenchmarkResult> run(const std::string& benchmark,
                                                const nlohmann::json& params,
                                                std::chrono::milliseconds timeout) = 0;
  // Applies guest OS settings before a run (protocol/guest_settings.hpp): per name the value
  // read back or the agent's reason. An error: the request itself failed (connection, reply).
  virtual Result<protocol::SettingStates> configure(const std::map<std::string, nlohmann::json>&) {
    return make_error(ErrorKind::internal, "this target cannot apply guest settings");
  }
  virtual Result<void> ping() = 0;              // is it still answering?
  virtual Result<void> shutdown() = 0;          // orderly stop; the destructor cleans up regardless
  virtual nlohmann::json intended() const = 0;  // intended topology (null: none)
  virtual nlohmann::json seen() const = 0;      // topology the agent reported
  virtual nlohmann::json mismatches() const = 0;  // [] when seen matches intended
  virtual nlohmann::json timings() const = 0;
  virtual nlohmann::json versions() const = 0;
  // Where it ran, for reports (store::BootRecord::context): accelerator, CPU model given.
  virtual nlohmann::json context() const { return nullptr; }
  // The plan it was booted with and its domain XML (store::BootRecord::plan; null: no guest).
  virtual nlohmann::json plan() const { return nullptr; }
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // Checks every configuration can be started (factor keys valid, layouts plan) before any
  // boot, and cleans leftovers of killed runs.
  virtual Result<void> prepare(const Experiment&, const std::vector<Configuration>&) = 0;
  virtual Result<std::unique_ptr<Target>> start(const Experiment&, const Configuration&) = 0;
  // The resolved layout of a prepared configuration (layout_to_json), recorded per cell and
  // compared on resume. null: the backend has no guest layout (host).
  virtual nlohmann::json layout_identity(const Configuration&) const { return nullptr; }
  virtual nlohmann::json host_topology() const = 0;
  virtual nlohmann::json versions() const = 0;
  // Where the experiment runs, for reports (store::StoredExperiment::context): connection URI,
  // accelerator asked for.
  virtual nlohmann::json context() const { return nullptr; }
  // The host this backend runs on, as the store records it (issue 16): its libvirt URI, or
  // "local" for backend "host".
  virtual std::string host() const = 0;
  // Why a prepared configuration cannot run on this host (the planner's reason), "" when it
  // fits. Such cells are recorded "does-not-fit", never booted, never counted as failed.
  virtual std::string does_not_fit(const Configuration&) const { return ""; }
  // After a failed start: is the host still reachable? An error (connection refused or
  // closed) stops this host's worker; the other hosts carry on.
  virtual Result<void> check_reachable() { return {}; }
};

}  // namespace topolab::experiment
