#include "orchestrator/run/experiment/guest_backend.hpp"

#include "host/topology_json.hpp"
#include "orchestrator/guest/remote/storage_pool.hpp"
#include "orchestrator/guest/session/boot_host.hpp"
#include "orchestrator/guest/session/guest_session.hpp"
#include "orchestrator/guest/session/vcpu_limits.hpp"
#include "orchestrator/guest/verify/guest_verify.hpp"
#include "orchestrator/libvirt/guestsource/disk_guest.hpp"
#include "orchestrator/libvirt/hostsource/host_source.hpp"
#include "orchestrator/libvirt/virt/connection_uri.hpp"
#include "orchestrator/libvirt/virt/run_identity.hpp"
#include "orchestrator/libvirt/virt/stale_domains.hpp"
#include "orchestrator/libvirt/virt/vcpu_host_cpus.hpp"
#include "orchestrator/model/layout/layout_fields.hpp"
#include "orchestrator/run/experiment/boot_request.hpp"
#include "orchestrator/run/experiment/guest_table.hpp"
#include "orchestrator/run/experiment/hosts.hpp"
#include "orchestrator/run/experiment/vcpu_sampler.hpp"

namespace topolab::experiment {
namespace {

using namespace std::chrono_literals;

class GuestTarget : public Target {
 public:
  // Verified once, against the topology the session announced (and wrote the XML from).
  // `host`: the stored host topology the vCPU samples are counted on (issue 26 item 2).
  GuestTarget(std::unique_ptr<GuestSession> s, const HostTopology& host,
              std::optional<guestsource::PreparedDisk> disk = std::nullopt)
      : disk_(std::move(disk)),
        session_(std::move(s)),
        verdict_(verify_guest(session_->announced(), session_->seen_topology())),
        host_(host) {}
  // A local guest's vCPU threads are sampled while the benchmark runs: the sampler starts as
  // the request goes out and is joined when the reply (or an error) is back.
  Result<protocol::BenchmarkResult> run(const std::string& benchmark, const nlohmann::json& params,
                                        std::chrono::milliseconds timeout) override {
    if (session_->remote()) {
      auto r = session_->agent().run(benchmark, params, timeout);
      if (r)
        r->host_telemetry = protocol::host_not_sampled(
            "remote host: its vCPU threads are not sampled (only a local guest's /proc is read)");
      return r;
    }
    virDomainPtr dom = session_->domain();
    VcpuSampler sampler([dom] { return virt::vcpu_host_cpus(dom); }, VcpuSampler::Options{});
    auto r = session_->agent().run(benchmark, params, timeout);
    const VcpuTicks ticks = sampler.stop();
    if (!r) return r;
    if (ticks.ticks.empty())
      r->host_telemetry = protocol::host_not_sampled(
          "no vCPU sample was read" + (sampler.error().empty() ? "" : ": " + sampler.error()));
    else
      r->host_telemetry = count_residency(ticks, host_, pinned_vcpus());
    return r;
  }
  Result<protocol::SettingStates> configure(
      const std::map<std::string, nlohmann::json>& settings) override {
    return session_->agent().configure(settings, kConfigureTimeout);
  }
  Result<void> ping() override { return session_->agent().ping(10s); }
  Result<void> shutdown() override { return session_->shutdown(); }
  nlohmann::json intended() const override { return topology_to_json(verdict_.intended); }
  nlohmann::json seen() const override { return topology_to_json(verdict_.seen); }
  nlohmann::json mismatches() const override { return mismatches_to_json(verdict_.mismatches); }
  nlohmann::json timings() const override { return session_->timings(); }
  // The plan the session booted: stored with the boot, drawn by the report.
  nlohmann::json plan() const override {
    return plan::guest_plan_to_json(session_->plan(), session_->domain_xml());
  }
  nlohmann::json versions() const override {
    const auto& h = session_->hello();
    return {{"agent", h.agent_version},
            {"guest_kernel", h.kernel},
            {"guest_cpu_model", h.cpu_model},
            {"domain", session_->domain_name()},
            {"run_id", session_->run_id()},
            {"kvm", session_->uses_kvm()},
            {"accel_reason", session_->accel().reason},
            {"guest_source", disk_ ? disk_->identity() : nlohmann::json{{"kind", "builtin"}}}};
  }
  // Where it ran, for reports: the accelerator and the CPU model the session announced.
  nlohmann::json context() const override {
    return {{"accelerator", session_->uses_kvm() ? "kvm" : "tcg"},
            {"accel_reason", session_->accel().reason},
            {"cpu_model", cpu_model_to_json(session_->announced().cpu_model)},
            {"adjusted_levels", adjusted_levels_to_json(session_->announced().adjusted_levels)}};
  }

 private:
  // Declared before the session: its overlay is deleted after the domain is gone.
  std::optional<guestsource::PreparedDisk> disk_;
  // Per vCPU: pinned to one host CPU by the plan the session booted.
  std::vector<bool> pinned_vcpus() const {
    const auto& plan = session_->announced().placement;
    std::vector<bool> out;
    for (const auto& v : plan.vcpus) {
      if (v.vcpu < 0 || static_cast<std::size_t>(v.vcpu) >= protocol::kMaxHostVcpus) continue;
      if (out.size() <= static_cast<std::size_t>(v.vcpu)) out.resize(v.vcpu + 1, false);
      out[v.vcpu] = plan.pinned && v.host_cpus.size() == 1;
    }
    return out;
  }

  std::unique_ptr<GuestSession> session_;
  GuestVerdict verdict_;
  HostTopology host_;
};

}  // namespace

Result<Layout> GuestBackend::configure_layout(const Layout& base, const Configuration& config) {
  Layout layout = base;
  for (const auto& [key, level] : config.levels) {
    if (key.rfind("cmdline.", 0) == 0) continue;
    auto set = set_layout_level(layout, key, level);  // typed: the level's TOML type is kept
    if (!set) return set.error().context("factor '" + key + "' = '" + level_text(level) + "'");
  }
  std::string extra = cmdline_extra(config);
  if (!extra.empty())
    layout.kernel_cmdline_extra += (layout.kernel_cmdline_extra.empty() ? "" : " ") + extra;
  return layout;
}

Result<void> GuestBackend::prepare(const Experiment& e, const std::vector<Configuration>& configs) {
  TL_ASSIGN(const plan::HostFacts facts, configure_layouts(e, configs));
  ImageOptions image_options;
  auto image = build_guest_image(image_options);
  if (!image) return image.error().context("guest image");
  image_ = *image;
  TL_ASSIGN(const auto cleaned, prepare_host());
  // After the stale cleanup: a killed run's domain no longer holds the disk.
  TL_TRY(check_own_guest(e));
  TL_TRY(plan_configurations(facts));
  versions_ = {
      {"topolab", TOPOLAB_VERSION},         {"backend", "guest"},
      {"guest_image", image_.content_hash}, {"guest_kernel", image_.kernel_version},
      {"stale_domains_removed", cleaned},   {"guest_source", guest_source_to_json(guest_)}};
  return {};
}

// Every configuration's layout is resolved before anything is contacted: a typo in the last
// level should not surface an hour into the run (a layout error is the file's and refuses the
// run). Returns the host facts read through this host's own connection (issue 16: each host
// plans on its own topology), without the accelerator yet.
Result<plan::HostFacts> GuestBackend::configure_layouts(const Experiment& e,
                                                        const std::vector<Configuration>& configs) {
  auto base = load_layout_file(e.layout_path);
  if (!base) return base.error().context(e.source_file.string() + ": layout");
  auto host = load_host_topology({options_.connect_uri, "", ""});
  if (!host) return host.error().context("host topology");
  host_ = *host;
  for (const auto& config : configs) {
    auto layout = configure_layout(*base, config);
    if (!layout) return layout.error().context(e.source_file.string() + ": " + config.label());
    layouts_[config.key] = *layout;
  }
  return plan::HostFacts{host_, session::libvirt_vcpu_limit(options_.connect_uri), std::nullopt};
}

// This host's accelerator is decided once (session::decide_boot_host: probed or cached), then
// every configuration is planned with it before the first boot. What the planner refuses is
// this host's: recorded as does-not-fit (the runner refuses the run when nothing fits anywhere).
Result<void> GuestBackend::plan_configurations(plan::HostFacts facts) {
  TL_ASSIGN(const auto mode, virt::parse_accel_mode(options_.accel));
  TL_ASSIGN_CTX(const auto decided,
                session::decide_boot_host({options_.connect_uri, mode, image_, options_.pool}),
                "accelerator");
  accel_ = decided.accel;
  facts.accel = accel_.accel;
  for (const auto& [key, layout] : layouts_) {
    auto plan = plan::plan_guest(layout, facts);
    if (!plan) {
      unfit_[key] = plan.error().message;
      continue;
    }
    prepared_.emplace(key, std::move(plan).value());
  }
  return {};
}

// Leftovers of a killed earlier run (their owner process is gone) are removed first, on this
// host's own connection (each host's backend does it for its host); returns their names. The
// guest image reaches a remote host at each boot (GuestSession: remote::place_image_on_host
// through the same URI, uploading only what the host's pool lacks).
Result<std::vector<std::string>> GuestBackend::prepare_host() {
  auto conn =
      virt::open_connection(options_.connect_uri.empty() ? "qemu:///system" : options_.connect_uri);
  if (!conn) return conn.error();
  auto cleaned = virt::cleanup_stale_domains(conn->get());
  if (!cleaned) return cleaned.error().context("cleaning stale topolab domains");
  // A remote host's image pool is ensured here, before anything is recorded on any host: a
  // path that cannot be created refuses the run in one line (each boot then only uploads).
  const std::string uri = GuestBackend::host();  // `host` is this host's topology here
  if (auto parsed = virt::parse_connection_uri(uri); parsed && parsed->remote) {
    auto pool = remote::ensure_topolab_pool(conn->get(), options_.pool);
    if (!pool) return pool.error().context("guest image on " + uri);
  }
  return cleaned;
}

// An own guest ([guest]) is refused before the first boot when the experiment cannot run on it.
Result<void> GuestBackend::check_own_guest(const Experiment& e) {
  guest_ = e.guest;
  if (guest_.builtin()) return {};
  // A cmdline.<option> level needs a kernel command line topolab writes: the disk's boot
  // loader owns it.
  for (const auto& f : e.factors)
    if (f.key.rfind("cmdline.", 0) == 0)
      return make_error(ErrorKind::input,
                        e.source_file.string() + ": factor '" + f.key +
                            "': cmdline factors need the built-in image (the disk's boot loader "
                            "sets its own kernel command line)");
  // Refused before the first boot: a missing, unusable or busy disk, a running template.
  if (guest_.kind == GuestKind::kDisk) {
    auto disk = guestsource::check_disk(options_.connect_uri, guest_.disk, guest_.from_file);
    if (!disk) return disk.error().context(e.source_file.string() + ": [guest]");
  } else {
    auto trial = guestsource::prepare_guest(options_.connect_uri, guest_, virt::make_run_id());
    if (!trial) return trial.error().context(e.source_file.string() + ": [guest]");
  }
  return {};
}

Result<std::unique_ptr<Target>> GuestBackend::start(const Experiment& e, const Configuration& c) {
  auto it = prepared_.find(c.key);
  if (it == prepared_.end())
    return make_error(ErrorKind::internal, "configuration " + c.label() + " was not prepared");
  BootChoices choices;
  choices.connect_uri = options_.connect_uri;
  choices.image = image_;
  choices.boot_retries = options_.boot_retries;
  choices.watchdog = std::chrono::milliseconds(options_.boot_watchdog_ms);
  choices.pool = options_.pool;
  if (options_.hello_timeout_ms)
    choices.hello_timeout = std::chrono::milliseconds(*options_.hello_timeout_ms);
  (void)e;
  std::optional<guestsource::PreparedDisk> disk;
  if (!guest_.builtin()) {
    choices.run_id = virt::make_run_id();
    auto prepared = guestsource::prepare_guest(options_.connect_uri, guest_, choices.run_id);
    if (!prepared) return prepared.error();
    disk.emplace(std::move(prepared).value());
    choices.disk = &*disk;
  }
  const BootRequest req = make_boot_request(it->second, accel_, choices);
  auto session = GuestSession::boot(req);
  if (!session) return session.error();
  return std::unique_ptr<Target>(new GuestTarget(std::move(*session), host_, std::move(disk)));
}

nlohmann::json GuestBackend::layout_identity(const Configuration& c) const {
  auto it = layouts_.find(c.key);
  return it == layouts_.end() ? nlohmann::json() : layout_to_json(it->second);
}

std::string GuestBackend::host() const {
  if (!options_.host.empty()) return options_.host;
  return options_.connect_uri.empty() ? kDefaultHost : options_.connect_uri;
}

std::string GuestBackend::does_not_fit(const Configuration& c) const {
  auto it = unfit_.find(c.key);
  return it == unfit_.end() ? "" : it->second;
}

// A fresh connection: a host whose libvirtd went away (or whose listener closed) refuses it.
Result<void> GuestBackend::check_reachable() {
  auto conn = virt::open_connection(options_.connect_uri);
  if (!conn) return conn.error();
  return {};
}

nlohmann::json GuestBackend::host_topology() const { return topology_to_json(host_); }
nlohmann::json GuestBackend::versions() const { return versions_; }
nlohmann::json GuestBackend::context() const {
  return {{"backend", "guest"},
          {"connect_uri", host()},  // as written: stored, shown in reports
          {"accel_requested", options_.accel}};
}

}  // namespace topolab::experiment
