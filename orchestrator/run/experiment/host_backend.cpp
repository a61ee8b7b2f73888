#include "orchestrator/run/experiment/host_backend.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "common/owned_fd.hpp"
#include "common/process.hpp"
#include "host/sysfs_reader.hpp"
#include "host/topology_json.hpp"
#include "orchestrator/base/install/install_paths.hpp"
#include "orchestrator/guest/agent/agent_client.hpp"
#include "orchestrator/libvirt/virt/domain_registry.hpp"

namespace topolab::experiment {
namespace {

using namespace std::chrono_literals;

// One `topolab-agent --unix` process; killed and reaped on every path.
class HostTarget : public Target {
 public:
  // holds_settings: --allow-host-settings. The agent may change this host's settings, and
  // puts them back when its session ends, on its shutdown request and on SIGTERM: so it is
  // stopped by SIGTERM with time to restore (never SIGKILL first), the signal watcher stops it
  // the same way on SIGINT/SIGTERM/SIGHUP of the runner, and it dies with the runner by SIGTERM
  // (the agent's own termination hook, guest-agent/os.hpp).
  static Result<std::unique_ptr<HostTarget>> spawn(const std::filesystem::path& agent,
                                                   bool holds_settings) {
    char tmpl[] = "/tmp/topolab-host-XXXXXX";
    if (!mkdtemp(tmpl))
      return make_error(ErrorKind::io, std::string("mkdtemp: ") + std::strerror(errno));
    auto t = std::unique_ptr<HostTarget>(new HostTarget());
    t->dir_ = tmpl;
    const std::string sock = (t->dir_ / "agent.sock").string();
    const std::string bin = agent.string();
    auto t0 = std::chrono::steady_clock::now();
    // Its banner and diagnostics go to a log file, not into the progress display.
    OwnedFd log(
        open((t->dir_ / "agent.log").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
    ProcessSpec spec({bin, "--unix", sock});
    spec.out = Sink::null();
    spec.err = log ? Sink::to_fd(log.get()) : Sink::null();
    spec.die_with_parent = true;  // the agent must not outlive a killed runner
    if (holds_settings) {
      virt::DomainRegistry::install_signal_handlers();
      spec.kill_grace = std::chrono::milliseconds(virt::DomainRegistry::kProcessStopBoundMs);
    }
    TL_ASSIGN(t->agent_, Process::spawn(spec));
    if (holds_settings) {
      if (auto held = virt::DomainRegistry::instance().add_process(t->agent_->pid()); !held)
        return held.error().context("host agent");
      t->registered_ = t->agent_->pid();
    }
    auto client = AgentClient::connect_unix(sock, 10s);
    if (!client) return client.error().context("host agent " + bin);
    t->client_ = std::move(*client);
    auto hello = t->client_->wait_hello(10s);
    if (!hello) return hello.error().context("host agent hello");
    t->hello_ = *hello;
    t->timings_ = {
        {"hello_ms",
         std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count()}};
    return t;
  }

  ~HostTarget() override {
    client_.reset();
    agent_.reset();  // SIGTERM to the agent's group, its grace, SIGKILL; reaped
    if (registered_) virt::DomainRegistry::instance().forget_process(*registered_);
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  Result<protocol::BenchmarkResult> run(const std::string& benchmark, const nlohmann::json& params,
                                        std::chrono::milliseconds timeout) override {
    auto r = client_->run(benchmark, params, timeout);
    if (r)
      r->host_telemetry = protocol::host_not_sampled(
          "host backend: the benchmark ran on the host itself, there are no vCPU threads");
    return r;
  }
  Result<protocol::SettingStates> configure(
      const std::map<std::string, nlohmann::json>& settings) override {
    return client_->configure(settings, kConfigureTimeout);
  }
  Result<void> ping() override { return client_->ping(5s); }
  Result<void> shutdown() override {
    auto r = client_->shutdown();
    if (agent_) agent_->wait_for(1s);
    return r;
  }
  nlohmann::json intended() const override { return nullptr; }
  nlohmann::json seen() const override { return hello_.topology; }
  nlohmann::json mismatches() const override { return nlohmann::json::array(); }
  nlohmann::json timings() const override { return timings_; }
  nlohmann::json versions() const override {
    return {{"agent", hello_.agent_version}, {"kernel", hello_.kernel}};
  }
  // No guest: the agent runs on the bare host, so nothing is emulated.
  nlohmann::json context() const override { return {{"accelerator", "host"}}; }

 private:
  HostTarget() = default;
  std::filesystem::path dir_;
  std::optional<Process> agent_;
  std::optional<pid_t> registered_;  // in the domain registry's processes (holds_settings)
  std::unique_ptr<AgentClient> client_;
  protocol::Hello hello_;
  nlohmann::json timings_;
};

}  // namespace

HostBackend::HostBackend(std::filesystem::path agent_binary, bool allow_host_settings)
    : agent_(agent_binary.empty() ? install_paths().agent : agent_binary),
      allow_host_settings_(allow_host_settings) {}

Result<void> HostBackend::prepare(const Experiment& e, const std::vector<Configuration>&) {
  // os.* would change this machine itself, not a guest (issue 25 item 4).
  const char* kHowToAllow =
      "; backend \"host\" refuses os.* unless run with --allow-host-settings (every value it "
      "changes is then put back on every exit, SIGINT and SIGTERM included)";
  for (const auto& f : e.factors)
    if (f.kind == FactorKind::kOs && !allow_host_settings_)
      return make_error(ErrorKind::input,
                        e.source_file.string() + ":" + std::to_string(f.line) + ": factor '" +
                            f.key + "' would change this host's own settings" + kHowToAllow);
  if (!e.os_constants.empty() && !allow_host_settings_)
    return make_error(ErrorKind::input,
                      e.source_file.string() + ":" + std::to_string(e.os_constants[0].line) +
                          ": [os] would change this host's own settings" + kHowToAllow);
  for (const auto& f : e.factors)
    if (f.kind != FactorKind::kParam && f.kind != FactorKind::kReplicate &&
        f.kind != FactorKind::kOs)
      return make_error(ErrorKind::input,
                        e.source_file.string() + ":" + std::to_string(f.line) + ": factor '" +
                            f.key + "' changes the guest; backend \"host\" accepts only " +
                            "param.<benchmark>.<name> and replicate factors");
  if (access(agent_.c_str(), X_OK) != 0)
    return make_error(ErrorKind::io,
                      "host backend: agent binary " + agent_.string() + " is not executable");
  auto topo = read_sysfs_topology("/");
  if (topo) host_topology_ = topology_to_json(*topo);
  return {};
}

Result<std::unique_ptr<Target>> HostBackend::start(const Experiment&, const Configuration&) {
  auto t = HostTarget::spawn(agent_, allow_host_settings_);
  if (!t) return t.error();
  host_topology_ = (*t)->seen();
  agent_versions_ = (*t)->versions();
  return std::unique_ptr<Target>(std::move(*t));
}

nlohmann::json HostBackend::versions() const {
  nlohmann::json v = agent_versions_;
  v["topolab"] = TOPOLAB_VERSION;
  v["backend"] = "host";
  return v;
}

}  // namespace topolab::experiment
