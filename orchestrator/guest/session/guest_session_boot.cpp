// One boot attempt of GuestSession (guest_session.hpp), as a list of named steps: the run
// folder, the connection, the image on the host, the domain XML (from the plan's announced
// topology; the accelerator was decided before planning), define and start, the agent channel,
// its hello, the vCPU placement. Each step records its timing in
// timings_; a failed step returns its error and the session's destructor cleans up.
#include <algorithm>
#include <sstream>

#include "common/file_io.hpp"
#include "common/json_text.hpp"
#include "host/topology_json.hpp"
#include "orchestrator/guest/session/guest_session.hpp"
#include "orchestrator/guest/session/hello_hint.hpp"
#include "orchestrator/libvirt/virt/domain_lifecycle.hpp"
#include "orchestrator/libvirt/virt/guest_cmdline.hpp"
#include "orchestrator/libvirt/virt/run_identity.hpp"
#include "orchestrator/libvirt/virt/stale_domains.hpp"
#include "orchestrator/planning/domain/domain_xml_writer.hpp"

namespace topolab {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

long long ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration_cast<milliseconds>(b - a).count();
}

// What is left of the hello deadline, at least 1 ms (0 would mean "no timeout" to a wait).
milliseconds remaining_until(Clock::time_point deadline) {
  return std::max(milliseconds(1),
                  std::chrono::duration_cast<milliseconds>(deadline - Clock::now()));
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

std::string no_hello_message(const BootRequest& req, const std::filesystem::path& run_dir,
                             const std::string& why) {
  return "no hello from the agent within " + std::to_string(req.hello_timeout.count()) + " ms (" +
         why + "); console: " + virt::console_tail(run_dir / "console.log", 5);
}

// An own guest that never answers: what to check (hello_hint.hpp), for either wait.
Error own_guest_no_hello(const BootRequest& req, const std::filesystem::path& run_dir,
                         const std::string& live_xml, const std::string& why) {
  auto message = no_hello_message(req, run_dir, why);
  auto base = read_file(req.base_template, 4u << 20);
  return make_error(ErrorKind::guest,
                    message + "; " +
                        own_guest_hello_hint(base ? *base : std::string(), live_xml,
                                             req.image.agent_port_name, run_dir / "console.log"));
}

}  // namespace

Result<void> GuestSession::boot_steps(const BootRequest& req) {
  TL_TRY(open_run(req));
  TL_TRY(connect_libvirt(req));
  TL_ASSIGN(const GuestImage image, place_image(req));
  TL_ASSIGN(const std::string xml, write_domain_xml(req, image));
  TL_ASSIGN(const auto started, define_and_start(req, xml));
  if (!remote_) qemu_warnings_ = qemu_log_warnings(name_);  // libvirt's log is on that host
  TL_ASSIGN(const std::string live, virt::domain_xml(domain_->get()));
  TL_TRY(connect_agent_channel(req, live, started));
  TL_TRY(wait_for_hello(req, live, started));
  return send_placement();
}

// The run's identity, its folder and its log; nothing touches libvirt yet.
Result<void> GuestSession::open_run(const BootRequest& req) {
  virt::DomainRegistry::install_signal_handlers();
  keep_ = req.keep;
  shutdown_timeout_ = req.shutdown_timeout;
  graceful_shutdown_ = req.graceful_shutdown || !req.base_template.empty();  // own disk: flush
  // The plan is the planning stage's, announced for this host's accelerator (boot_host.hpp).
  if (!req.plan.announced || req.plan.announced->accel != req.accel.accel)
    return make_error(ErrorKind::internal,
                      "boot: the plan was not announced for the host's accelerator (plan_guest "
                      "with HostFacts::accel from decide_boot_host)");
  plan_ = req.plan;
  accel_ = req.accel;
  run_id_ = req.run_id.empty() ? virt::make_run_id() : req.run_id;
  if (auto problem = virt::run_id_problem(run_id_); !problem.empty())
    return make_error(ErrorKind::input, problem);
  const std::string& layout = plan_.layout.name;
  name_ = virt::domain_name_for(layout.empty() ? "guest" : layout, run_id_);
  auto folder = make_run_folder(req.run_dir.empty() ? kRunsRoot / run_id_ : req.run_dir);
  if (!folder) return folder.error();
  run_dir_ = *folder;
  // The run log (debug detail: libvirt calls, timings, agent exchanges) from here on.
  TL_ASSIGN(run_log_, logging::RunLog::open(run_dir_));
  logging::debug("boot {} (run {}) in {}", name_, run_id_, run_dir_.string());
  if (req.base_template.empty() && (req.image.kernel.empty() || req.image.initrd.empty())) {
    return make_error(ErrorKind::input,
                      "guest image has no kernel/initrd (build it with build_guest_image)");
  }
  return {};
}

// The connection, and the domains of runs that are gone (a crash, a kill -9) removed first.
Result<void> GuestSession::connect_libvirt(const BootRequest& req) {
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
  return {};
}

// The kernel and initramfs where the connection's host reads them (uploaded when remote).
Result<GuestImage> GuestSession::place_image(const BootRequest& req) {
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
  return image;
}

// What DomainXmlWriter writes for this boot (its notes pointer is the caller's).
DomainSpec GuestSession::domain_spec(const BootRequest& req, const GuestImage& image) const {
  DomainSpec spec;
  spec.name = name_;
  spec.layout = &plan_.layout;
  spec.announced = &*plan_.announced;
  spec.base_template = req.base_template;
  if (req.base_template.empty()) {
    spec.boot = BootSpec{
        image.kernel, image.initrd,
        virt::guest_cmdline(image.cmdline, req.verbose_console, accel_.accel == Accelerator::kTcg,
                            plan_.layout.kernel_cmdline_extra)};
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
  return spec;
}

// The domain XML owned by this run, written from the plan's announced topology, kept as
// domain.xml.
Result<std::string> GuestSession::write_domain_xml(const BootRequest& req,
                                                   const GuestImage& image) {
  auto t_xml = Clock::now();
  DomainSpec spec = domain_spec(req, image);
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
  domain_xml_ = *owned_xml;
  timings_["xml_ms"] = ms_between(t_xml, Clock::now());
  return owned_xml;
}

// Define and start (remote: paused until its streams are open), then the boot watchdog.
// Returns when start returned: the hello deadline counts from there.
Result<GuestSession::TimePoint> GuestSession::define_and_start(const BootRequest& req,
                                                               const std::string& xml) {
  auto t_define = Clock::now();
  auto dom = virt::OwnedDomain::define(conn_.get(), xml);
  if (!dom) return dom.error();
  domain_.emplace(std::move(dom).value());
  auto t_start = Clock::now();
  timings_["define_ms"] = ms_between(t_define, t_start);
  TL_TRY(virt::start_domain(domain_->get(), /*paused=*/remote_));
  if (remote_) TL_TRY(open_streams(req.image.agent_port_name));  // then resumed
  auto t_started = Clock::now();
  timings_["start_ms"] = ms_between(t_start, t_started);
  start_watchdog(req);  // a silent console before hello: destroyed, retried by boot()
  return t_started;
}

// The agent's channel, connected within the hello deadline; its transcript goes to agent.log.
Result<void> GuestSession::connect_agent_channel(const BootRequest& req,
                                                 const std::string& live_xml, TimePoint started) {
  // The built-in guest's agent is this tree's: its own hello is the first line (no sync).
  std::string where;  // the channel, for errors
  auto agent = connect_agent(
      live_xml, req.image.agent_port_name, remaining_until(started + req.hello_timeout),
      req.base_template.empty() ? AgentClient::Sync::kHelloFirst : AgentClient::Sync::kResync,
      where);
  if (!agent && !req.base_template.empty()) {
    return own_guest_no_hello(req, run_dir_, live_xml,
                              "agent channel " + where + ": " + agent.error().message);
  }
  if (!agent) return agent.error().context("agent channel " + where);
  agent_ = std::move(agent).value();
  transcript_.open(run_dir_ / "agent.log");
  agent_->set_transcript(&transcript_);
  timings_["connect_ms"] = ms_between(started, Clock::now());
  return {};
}

// The agent's hello within the deadline (the watchdog stops there), with the topology the
// guest sees.
Result<void> GuestSession::wait_for_hello(const BootRequest& req, const std::string& live_xml,
                                          TimePoint started) {
  auto hello = agent_->wait_hello(remaining_until(started + req.hello_timeout));
  auto t_hello = Clock::now();
  if (watchdog_) watchdog_->stop();
  if (!hello && !req.base_template.empty()) {
    return own_guest_no_hello(req, run_dir_, live_xml, hello.error().message);
  }
  if (!hello) {
    return make_error(ErrorKind::guest, no_hello_message(req, run_dir_, hello.error().message));
  }
  hello_ = *hello;
  timings_["hello_ms"] = ms_between(started, t_hello);
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
  return {};
}

// The vCPU -> host CPU placement to the agent; hello.json kept beside the run's other files.
Result<void> GuestSession::send_placement() {
  auto t_place = Clock::now();
  TL_TRY(agent_->send_placement(vcpu_mappings(announced().placement)));
  timings_["placement_ms"] = ms_between(t_place, Clock::now());
  (void)write_file_atomic(run_dir_ / "hello.json", json_document(protocol::hello_message(hello_)),
                          0600);
  logging::debug("boot timings: {}", timings_.dump());
  return {};
}

}  // namespace topolab
