#pragma once
// One booted topolab guest, from placement plan to an agent that said hello:
//   plan -> announced topology -> domain XML (DomainXmlWriter) -> define -> start -> connect the
//   agent channel -> wait hello (deadline) -> send the vCPU -> host CPU placement -> ready.
// The session owns its domain (`topolab-<layout>-<runid>`): the destructor destroys and
// undefines it on every path (unless BootRequest::keep), SIGINT/SIGTERM included (see
// domain_registry.hpp). The run folder (0700) keeps domain.xml, console.log (serial console)
// and agent.log (the agent transcript).
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "host/host_topology.hpp"
#include "orchestrator/base/logging/log.hpp"
#include "orchestrator/guest/agent/agent_client.hpp"
#include "orchestrator/guest/image/guest_image.hpp"
#include "orchestrator/guest/remote/host_image.hpp"
#include "orchestrator/libvirt/virt/accelerator.hpp"
#include "orchestrator/libvirt/virt/boot_watchdog.hpp"
#include "orchestrator/libvirt/virt/domain_registry.hpp"
#include "orchestrator/libvirt/virt/libvirt_handles.hpp"
#include "orchestrator/libvirt/virt/stream_bridge.hpp"
#include "orchestrator/model/layout/layout.hpp"
#include "orchestrator/planning/placement/announced_topology.hpp"
#include "orchestrator/planning/plan/guest_plan.hpp"

namespace topolab {

struct DomainSpec;  // domain/domain_xml_writer.hpp

inline const std::filesystem::path kRunsRoot = "/var/lib/topolab/runs";

struct BootRequest {
  std::string connect_uri;  // empty: qemu:///system
  // The cell's plan (plan::plan_guest), made with this host's accelerator: plan.announced is
  // what the guest is told and what its domain XML is written from. The session never plans,
  // announces or probes (issue 28).
  plan::GuestPlan plan;
  // The host's accelerator decision the plan was announced for (decide_boot_host, boot_host.hpp).
  virt::AccelDecision accel;
  GuestImage image;
  std::filesystem::path run_dir;  // empty: /var/lib/topolab/runs/<run_id>
  std::string run_id;             // empty: a new one (virt::make_run_id)
  std::chrono::milliseconds hello_timeout{60000};
  bool keep = false;  // leave the domain running and defined after the session
  // Additions beyond the contract:
  std::chrono::milliseconds shutdown_timeout{15000};  // agent shutdown -> shut off
  // Boot watchdog (boot_watchdog.hpp): a guest whose console stays silent this long before its
  // hello is destroyed and booted again, at most boot_retries more times; every failed
  // attempt's console is kept as console.attempt-N.log. 0: derived from the layout
  // (derived_watchdog_bound; own guests, base_template: own_disk_watchdog_bound, and any bound
  // counted from the kernel's first console line); negative: no watchdog.
  std::chrono::milliseconds watchdog{0};
  int boot_retries = virt::kDefaultBootRetries;
  bool verbose_console = true;  // boot without `quiet`: the console is the watchdog's progress
  // Own guests (issue 14, guestsource/): a base domain XML replacing linux-direct-boot.xml; the
  // guest then boots from that XML's disks (no direct kernel boot; `image` only serves the KVM
  // probe).
  std::filesystem::path base_template;
  // A copy of an existing domain (`run --domain T`, issue 34): T's name, written into the
  // copy's <topolab:run template='T'> so the libvirt hook isolates the copy as it would T.
  std::string template_domain;
  // Shutdown (issue 17): the built-in initramfs guest has nothing to flush, so the domain is
  // destroyed as soon as the agent acknowledged the shutdown request. Own guests
  // (graceful_shutdown, implied by base_template; issue 14): the guest powers itself off
  // (flushing its disk) after the agent's request, waited for up to shutdown_timeout; a guest
  // still running is sent the ACPI power button and waited for up to shutdown_timeout again;
  // only then destroyed.
  bool graceful_shutdown = false;
  // No USB controller and no PCIe root ports (DomainSpec::minimal_devices): for the built-in
  // guest, which uses only the serial console and the agent's virtio-serial channel; never
  // for an own guest (base_template).
  bool minimal_devices = true;
  // Remote connections (issue 16, remote/host_image.hpp): the pool on that host the kernel and
  // initramfs are uploaded into. `placed`: place_image_on_host already resolved for this
  // connection by an earlier attempt of this boot (the watchdog's retry); else the session does.
  remote::PoolSpec pool;
  std::optional<remote::HostImage> placed;
};

class GuestSession {  // owns one booted topolab- domain; the destructor destroys + undefines it
 public:
  static Result<std::unique_ptr<GuestSession>> boot(const BootRequest&);
  ~GuestSession();
  GuestSession(const GuestSession&) = delete;
  GuestSession& operator=(const GuestSession&) = delete;

  const protocol::Hello& hello() const;  // typed and validated at receipt (parse_hello)
  const HostTopology& seen_topology() const;
  // What this guest was told (its domain XML was written from it): what verify expects.
  const AnnouncedTopology& announced() const { return *plan_.announced; }
  // The plan it was booted from and the domain XML written from it (the run's domain.xml;
  // "" before define): both stored with the boot (plan::guest_plan_to_json).
  const plan::GuestPlan& plan() const { return plan_; }
  const std::string& domain_xml() const { return domain_xml_; }
  AgentClient& agent();
  // define_ms, start_ms, hello_ms (start returned -> hello received), guest_uptime_at_hello_ms,
  // plus xml_ms, connect_ms, placement_ms; boot_attempts, watchdog_ms and
  // boot_retries ([{attempt, reason, console}], one per hung attempt that was retried),
  // console_first_output_ms and console_max_silence_ms (the watchdog's view of this boot).
  nlohmann::json timings() const;
  // Agent shutdown (ack awaited), then destroy (graceful_shutdown: wait for the guest's own
  // poweroff first, then press its ACPI power button, each bounded); undefine. shutdown_ms
  // covers it all; shutdown_by says which step ended the guest: "agent" (its acknowledged
  // request; the built-in guest is destroyed right after the ack), "acpi" or "destroy".
  Result<void> shutdown();

  // Additions beyond the contract:
  const std::string& domain_name() const { return name_; }
  const std::string& run_id() const { return run_id_; }
  const std::filesystem::path& run_dir() const { return run_dir_; }
  const virt::AccelDecision& accel() const { return accel_; }
  bool uses_kvm() const { return accel_.accel == Accelerator::kKvm; }
  Accelerator accelerator() const { return accel_.accel; }
  // Distinct "warning:" lines QEMU logged at start (e.g. a required CPU feature it dropped),
  // read from /var/log/libvirt/qemu/<name>.log when local; empty when unreadable.
  const std::vector<std::string>& qemu_warnings() const { return qemu_warnings_; }
  // The connection goes through libvirt's remote driver (issue 16): the host's /proc is not ours.
  bool remote() const { return remote_; }
  // The running domain, for read-only queries beside the agent's run (the experiment's vCPU
  // sampler; libvirt handles may be used from several threads). Null before define.
  virDomainPtr domain() const { return domain_ ? domain_->get() : nullptr; }

 private:
  GuestSession() = default;
  // One boot attempt, step by step (guest_session_boot.cpp).
  using TimePoint = std::chrono::steady_clock::time_point;
  Result<void> boot_steps(const BootRequest& req);
  Result<void> open_run(const BootRequest& req);
  Result<void> connect_libvirt(const BootRequest& req);
  Result<GuestImage> place_image(const BootRequest& req);
  DomainSpec domain_spec(const BootRequest& req, const GuestImage& image) const;
  Result<std::string> write_domain_xml(const BootRequest& req, const GuestImage& image);
  Result<TimePoint> define_and_start(const BootRequest& req, const std::string& xml);
  Result<void> connect_agent_channel(const BootRequest& req, const std::string& live_xml,
                                     TimePoint started);
  Result<void> wait_for_hello(const BootRequest& req, const std::string& live_xml,
                              TimePoint started);
  Result<void> send_placement();
  // Boot watchdog and retries (guest_session_retry.cpp).
  void start_watchdog(const BootRequest& req);
  bool hung() const { return watchdog_ && watchdog_->fired(); }
  Error hang_error() const;
  std::string vcpu_summary() const;
  std::string hang_reason() const;
  std::optional<Error> retryable_failure(const Error& failure) const;
  nlohmann::json discard_hung_attempt(int attempt, const std::string& reason);
  void record_boot_timings(int attempt, const nlohmann::json& once, nlohmann::json retries);
  Error out_of_attempts(const Error& hang, const std::string& what, int attempt, int attempts,
                        const nlohmann::json& retries) const;
  void prepare_retry(BootRequest& next, const BootRequest& req, int attempt,
                     nlohmann::json& once) const;
  // The agent channel and console (guest_session_streams.cpp): a local guest's channel socket
  // is connected directly; a remote guest's channel and console go through libvirt streams
  // (virt/stream_bridge.hpp), opened while it is paused (open_streams resumes it).
  Result<void> open_streams(const std::string& channel);
  Result<std::unique_ptr<AgentClient>> connect_agent(const std::string& live_xml,
                                                     const std::string& channel,
                                                     std::chrono::milliseconds timeout,
                                                     AgentClient::Sync sync, std::string& where);
  void close_streams();
  // Own guests' shutdown after the agent's request (guest_session_shutdown.cpp): wait, ACPI,
  // wait; returns which step ended the guest ("agent", "acpi", or "destroy": still running).
  std::string stop_gracefully(bool agent_acked, std::string& problems);

  logging::RunLog run_log_;  // first: closed last, after the cleanup's libvirt calls are logged
  virt::ConnectPtr conn_;
  std::optional<virt::OwnedDomain> domain_;
  // Remote guests only; declared before agent_, which reads the channel bridge's socket.
  std::unique_ptr<virt::StreamBridge> console_bridge_, channel_bridge_;
  OwnedFd channel_fd_;  // the channel bridge's local end until the agent client adopts it
  std::unique_ptr<AgentClient> agent_;
  std::ofstream transcript_;
  protocol::Hello hello_;
  HostTopology seen_;
  plan::GuestPlan plan_;    // plan_.announced is set (checked in open_run)
  std::string domain_xml_;  // as defined by the last attempt
  nlohmann::json timings_ = nlohmann::json::object();
  virt::AccelDecision accel_;
  std::string name_, run_id_;
  bool remote_ = false;                      // the connection goes through libvirt's remote driver
  std::optional<remote::HostImage> placed_;  // where this attempt found or put the image
  std::vector<std::string> qemu_warnings_;
  std::filesystem::path run_dir_;
  bool keep_ = false;
  std::chrono::milliseconds shutdown_timeout_{15000};
  bool shut_down_ = false;
  bool graceful_shutdown_ = false;
  std::unique_ptr<virt::BootWatchdog> watchdog_;  // declared after domain_: stopped before it
};

}  // namespace topolab
