#include "orchestrator/session/guest_session.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "common/file_io.hpp"
#include "common/json_text.hpp"
#include "host/topology_json.hpp"
#include "orchestrator/domain/domain_xml_writer.hpp"
#include "orchestrator/session/hello_hint.hpp"
#include "orchestrator/session/kvm_probe.hpp"
#include "orchestrator/virt/domain_lifecycle.hpp"
#include "orchestrator/virt/guest_cmdline.hpp"
#include "orchestrator/virt/run_identity.hpp"
#include "orchestrator/virt/stale_domains.hpp"

namespace topolab {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

long long ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration_cast<milliseconds>(b - a).count();
}

// sun_path holds 108 bytes; longer run folders fall back to a socket path libvirt chooses.
constexpr std::size_t kMaxSocketPath = 100;

// The run folder for this boot: `dir` itself, or dir/boot-N when an earlier boot of the same
// run already used it (one folder per boot keeps every console log).
Result<std::filesystem::path> make_run_folder(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir.parent_path(), ec);
  std::filesystem::path chosen = dir;
  for (int n = 2; std::filesystem::exists(chosen / "domain.xml"); ++n) {
    chosen = dir / ("boot-" + std::to_string(n));
  }
  // A planted symlink or another user's folder is refused, never written through or chmod'ed.
  if (auto made = make_private_dir(chosen); !made) return made.error().context("run folder");
  return chosen;
}

// QEMU's own warnings for this domain (libvirt's per-domain log), distinct, timestamps cut.
std::vector<std::string> qemu_log_warnings(const std::string& domain) {
  std::vector<std::string> out;
  auto text = read_file("/var/log/libvirt/qemu/" + domain + ".log", 4u << 20);
  if (!text) return out;
  std::istringstream in(*text);
  std::string line;
  while (std::getline(in, line) && out.size() < 20) {
    auto w = line.find("warning: ");
    if (w == std::string::npos) continue;
    std::string msg = line.substr(w + 9, 300);
    if (std::find(out.begin(), out.end(), msg) == out.end()) out.push_back(msg);
  }
  return out;
}

// The protocol's own type: the wire keys are written in one place (protocol::placement_to_json).
std::vector<protocol::VcpuMapping> vcpu_mappings(const PlacementPlan& plan) {
  std::vector<protocol::VcpuMapping> vcpus;
  for (const auto& v : plan.vcpus) vcpus.push_back({v.vcpu, v.host_cpus});
  return vcpus;
}

}  // namespace

Result<void> GuestSession::boot_steps(const BootRequest& req) {
  virt::DomainRegistry::install_signal_handlers();
  keep_ = req.keep;
  shutdown_timeout_ = req.shutdown_timeout;
  graceful_shutdown_ = req.graceful_shutdown || !req.base_template.empty();  // own disk: flush
  run_id_ = req.run_id.empty() ? virt::make_run_id() : req.run_id;
  if (auto problem = virt::run_id_problem(run_id_); !problem.empty()) return make_error(problem);
  name_ = virt::domain_name_for(req.layout.name.empty() ? "guest" : req.layout.name, run_id_);
  auto folder = make_run_folder(req.run_dir.empty() ? kRunsRoot / run_id_ : req.run_dir);
  if (!folder) return folder.error();
  run_dir_ = *folder;
  // The run log (debug detail: libvirt calls, timings, agent exchanges) from here on.
  TL_ASSIGN(run_log_, logging::RunLog::open(run_dir_));
  logging::debug("boot {} (run {}) in {}", name_, run_id_, run_dir_.string());
  if (req.base_template.empty() && (req.image.kernel.empty() || req.image.initrd.empty())) {
    return make_error("guest image has no kernel/initrd (build it with build_guest_image)");
  }

  auto conn = virt::open_connection(req.connect_uri);
  if (!conn) return conn.error();
  conn_ = std::move(conn).value();
  if (auto stale = virt::cleanup_stale_domains(conn_.get()); stale) {
    for (const auto& n : *stale) {
      logging::info("removed stale domain {} (its run is gone)", n);
    }
  } else {
    logging::warn("{}", stale.error().message);
  }

  auto t_image = Clock::now();
  auto placed = req.placed ? Result<remote::HostImage>(*req.placed)
                           : remote::place_image_on_host(conn_.get(), req.image, req.pool);
  if (!placed) return placed.error();
  placed_ = *placed;
  remote_ = placed->remote;
  GuestImage image = req.image;  // the cmdline stays the request's (retries extend it)
  image.kernel = placed->image.kernel;
  image.initrd = placed->image.initrd;
  timings_["image_ms"] = ms_between(t_image, Clock::now());
  if (remote_) timings_["image_bytes_sent"] = placed->bytes_sent;

  auto t_accel = Clock::now();
  session::KvmProbeOptions probe{image, run_dir_ / "kvm-probe", run_id_};
  int probe_attempt = 0;  // a hung probe is run again (kKvmProbeAttempts): its own folder
  auto probe_once = [&] {
    auto o = probe;
    if (++probe_attempt > 1) o.work_dir += "." + std::to_string(probe_attempt);
    return session::probe_kvm(conn_.get(), o);
  };
  auto accel = req.accel_decided
                   ? Result<virt::AccelDecision>(*req.accel_decided)  // a retry (boot_retries)
                   : virt::choose_accelerator(conn_.get(), req.accel, probe_once, req.accel_cache);
  if (!accel) return accel.error();
  accel_ = *accel;
  timings_["accel_ms"] = ms_between(t_accel, Clock::now());
  if (accel_.probes > 0) timings_["accel_probes"] = accel_.probes;

  auto t_xml = Clock::now();
  auto announced = announce_topology(req.layout, req.plan, accel_.accel, req.host_vendor);
  if (!announced) return announced.error().context("domain XML");
  announced_ = std::move(announced).value();
  DomainSpec spec;
  spec.name = name_;
  spec.layout = &req.layout;
  spec.announced = &announced_;
  spec.base_template = req.base_template;
  if (req.base_template.empty()) {
    spec.boot = BootSpec{
        image.kernel, image.initrd,
        virt::guest_cmdline(image.cmdline, req.verbose_console, accel_.accel == Accelerator::kTcg,
                            req.layout.kernel_cmdline_extra)};
  }
  spec.minimal_devices = req.minimal_devices && req.base_template.empty();
  ChannelSpec channel;
  channel.name = req.image.agent_port_name;
  auto socket = run_dir_ / "agent.sock";
  // Remote: libvirt chooses the socket on that host; it is reached through a stream.
  if (!remote_ && socket.string().size() <= kMaxSocketPath) channel.socket_path = socket;
  spec.agent_channel = channel;
  spec.serial_log = run_dir_ / "console.log";
  spec.console_stream = remote_;  // a pty read through libvirt into the same local file
  std::vector<std::string> kept;  // what of the base was kept or replaced: said, not silent
  spec.notes = &kept;
  auto xml = DomainXmlWriter().write(spec);
  if (!xml) return xml.error().context("domain XML");
  for (const auto& note : kept) logging::info("domain XML: {}", note);
  auto owner = virt::current_run_owner(run_id_);
  owner.template_domain = req.template_domain;
  auto owned_xml = virt::add_run_metadata(*xml, owner);
  if (!owned_xml) return owned_xml.error();
  TL_TRY(write_file_atomic(run_dir_ / "domain.xml", *owned_xml, 0600));
  timings_["xml_ms"] = ms_between(t_xml, Clock::now());

  auto t_define = Clock::now();
  auto dom = virt::OwnedDomain::define(conn_.get(), *owned_xml);
  if (!dom) return dom.error();
  domain_.emplace(std::move(dom).value());
  auto t_start = Clock::now();
  timings_["define_ms"] = ms_between(t_define, t_start);
  TL_TRY(virt::start_domain(domain_->get(), /*paused=*/remote_));
  if (remote_) TL_TRY(open_streams(channel.name));  // then resumed
  auto t_started = Clock::now();
  timings_["start_ms"] = ms_between(t_start, t_started);
  start_watchdog(req);  // a silent console before hello: destroyed, retried by boot()
  auto deadline = t_started + req.hello_timeout;
  auto remaining = [&] {
    return std::max(milliseconds(1),
                    std::chrono::duration_cast<milliseconds>(deadline - Clock::now()));
  };

  if (!remote_) qemu_warnings_ = qemu_log_warnings(name_);  // libvirt's log is on that host
  auto live = virt::domain_xml(domain_->get());
  if (!live) return live.error();
  // An own guest that never answers: what to check (hello_hint.hpp), for either wait below.
  auto no_hello = [&](const std::string& why) {
    auto message = "no hello from the agent within " + std::to_string(req.hello_timeout.count()) +
                   " ms (" + why + "); console: " + virt::console_tail(run_dir_ / "console.log", 5);
    auto base = read_file(req.base_template, 4u << 20);
    return make_error(ErrorKind::guest,
                      message + "; " +
                          own_guest_hello_hint(base ? *base : std::string(), *live, channel.name,
                                               run_dir_ / "console.log"));
  };
  // The built-in guest's agent is this tree's: its own hello is the first line (no sync).
  std::string where;  // the channel, for errors
  auto agent = connect_agent(
      *live, channel.name, remaining(),
      req.base_template.empty() ? AgentClient::Sync::kHelloFirst : AgentClient::Sync::kResync,
      where);
  if (!agent && !req.base_template.empty()) {
    return no_hello("agent channel " + where + ": " + agent.error().message);
  }
  if (!agent) return agent.error().context("agent channel " + where);
  agent_ = std::move(agent).value();
  transcript_.open(run_dir_ / "agent.log");
  agent_->set_transcript(&transcript_);
  timings_["connect_ms"] = ms_between(t_started, Clock::now());

  auto hello = agent_->wait_hello(remaining());
  auto t_hello = Clock::now();
  if (watchdog_) watchdog_->stop();
  if (!hello && !req.base_template.empty()) return no_hello(hello.error().message);
  if (!hello) {
    return make_error(ErrorKind::guest, "no hello from the agent within " +
                                            std::to_string(req.hello_timeout.count()) + " ms (" +
                                            hello.error().message + "); console: " +
                                            virt::console_tail(run_dir_ / "console.log", 5));
  }
  hello_ = *hello;
  timings_["hello_ms"] = ms_between(t_started, t_hello);
  timings_["guest_uptime_at_hello_ms"] = hello_.uptime_ms;
  if (hello_.topology.is_null()) {
    return make_error(ErrorKind::guest,
                      "the agent's hello has no topology (" +
                          (hello_.topology_error.empty() ? std::string("no reason given")
                                                         : hello_.topology_error) +
                          ")");
  }
  auto seen = topology_from_json(hello_.topology);
  if (!seen) return seen.error().context("guest topology in hello");
  seen_ = std::move(seen).value();

  auto t_place = Clock::now();
  TL_TRY(agent_->send_placement(vcpu_mappings(announced_.placement)));
  timings_["placement_ms"] = ms_between(t_place, Clock::now());
  (void)write_file_atomic(run_dir_ / "hello.json", json_document(protocol::hello_message(hello_)),
                          0600);
  logging::debug("boot timings: {}", timings_.dump());
  return {};
}

GuestSession::~GuestSession() {
  watchdog_.reset();  // its on_hang uses domain_
  if (domain_ && keep_ && !shut_down_) {
    domain_->release();
    logging::info("kept domain {} (--keep); remove it with virsh destroy/undefine", name_);
  }
  agent_.reset();  // before the transcript stream it writes to, and the bridge it reads
  close_streams();
  domain_.reset();  // destroys + undefines unless released
}

const protocol::Hello& GuestSession::hello() const { return hello_; }
const HostTopology& GuestSession::seen_topology() const { return seen_; }
AgentClient& GuestSession::agent() { return *agent_; }
nlohmann::json GuestSession::timings() const { return timings_; }

Result<void> GuestSession::shutdown() {
  if (shut_down_ || !domain_) return {};
  shut_down_ = true;
  auto t0 = Clock::now();
  std::string problems;
  bool acked = false;
  if (agent_) {
    auto r = agent_->shutdown();
    acked = r.ok();
    if (!r) problems = "agent shutdown: " + r.error().message;
  }
  // The built-in guest has nothing to flush: its ack is the end (destroyed below). An own-disk
  // guest powers itself off: agent, then ACPI, then destroy (guest_session_shutdown.cpp).
  std::string by = acked ? "agent" : "destroy";
  if (graceful_shutdown_) by = stop_gracefully(acked, problems);
  agent_.reset();
  channel_bridge_.reset();
  auto removed = domain_->remove();  // destroy if still running, then undefine
  console_bridge_.reset();           // after the domain stopped: its last lines are in
  domain_.reset();
  timings_["shutdown_ms"] = ms_between(t0, Clock::now());
  timings_["shutdown_by"] = by;
  logging::debug("shutdown of {}: {} ms, ended by {}{}", name_,
                 timings_["shutdown_ms"].get<long long>(), by,
                 problems.empty() ? std::string() : " (" + problems + ")");
  if (!removed) return removed.error();
  if (!problems.empty()) return make_error("shutdown of " + name_ + ": " + problems);
  return {};
}

}  // namespace topolab
