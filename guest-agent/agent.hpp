#pragma once
// The agent's protocol loop, independent of the transport and the OS (both injected).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "guest-agent/platform.hpp"
#include "guest-agent/settings.hpp"
#include "guest-agent/transport.hpp"
#include "protocol/protocol.hpp"

namespace topolab::agent {

struct AgentOptions {
  // Test-only faults: stop answering after N requests (-1: never; sync is still answered so a
  // host can connect and then see its requests time out); a garbage line before each reply.
  int hang_after = -1;
  bool garbage = false;
  // As PID 1 only: never start serving (no hello) and print nothing more, like a guest kernel
  // hung at boot; what the host's boot watchdog is tested with (topolab.fault=hang-boot).
  bool hang_boot = false;
  // topolab.fault=hang-boot-first: the same, on the first boot attempt only; the host puts
  // topolab.boot_attempt=N (N >= 2) on the command line of a retried boot, so a test sees the
  // watchdog retry a hung boot and the retry succeed.
  bool hang_boot_first = false;
  // topolab.fault=stall-boot: never serves either, but prints a kernel-style stall report
  // ("watchdog: BUG: soft lockup ...") every second, as a guest kernel livelocked in
  // stop_machine does (CI of 6 Dec): the console keeps growing, so only the watchdog's stall
  // rule (virt::shows_stall_report) can end the boot before the hello timeout.
  bool stall_boot = false;
  int boot_attempt = 1;
  bool hangs_at_boot() const { return hang_boot || (hang_boot_first && boot_attempt == 1); }
  // Per-client bounds (issue 12): a reply the host does not take within write_timeout_ms, or a
  // line begun and not finished within line_timeout_ms, ends the session; idle_timeout_ms (-1:
  // none) ends a session with no request for that long, so a silent UNIX-socket client cannot
  // keep the agent to itself (over virtio-serial the one host is the only possible client).
  int write_timeout_ms = 10000;
  int line_timeout_ms = 10000;
  int idle_timeout_ms = -1;
};

// The same faults for the built-in image, where the agent is PID 1 and has no argv: the host
// puts `topolab.fault=hang-after:N`, `=garbage` or `=hang-boot` on the kernel command line (an
// experiment's `cmdline.topolab.fault` factor). Returns "" or what was wrong with the value;
// other words of the command line are ignored.
std::string apply_cmdline_faults(std::string_view cmdline, AgentOptions& options);

class Agent {
 public:
  Agent(Platform& platform, AgentOptions options, std::ostream& log);

  // The hello line (re-reads uptime and topology).
  std::string hello_line();
  struct Output {
    std::string bytes;      // lines to send, in order
    bool shutdown = false;  // a shutdown was acknowledged: stop serving
  };
  // Feeds raw bytes from the host; returns what to send back.
  Output on_bytes(std::string_view bytes);
  // Handles one complete line (without '\n').
  Output on_line(std::string_view line);

  // Serves hosts one after another until a shutdown request; returns false on a broken
  // transport (the error is logged).
  bool serve(Transport& transport);

  // Puts back every setting configure changed (thread-safe: the termination hook calls it).
  void restore_settings() { settings_.restore_all(); }

  static constexpr const char* kGarbageLine = "\x01garbage \xc3\x28 {not json\n";

 private:
  void reply(Output& out, const nlohmann::json& message);
  // Whether the session should end: a partial line or silence outlived its bound (logged).
  bool session_timed_out(std::int64_t idle_ms, std::int64_t partial_ms);
  nlohmann::json run(const protocol::RunRequest& request);
  nlohmann::json configure(const protocol::ConfigureRequest& request);

  Platform& platform_;
  AgentOptions options_;
  std::ostream& log_;
  protocol::LineReader reader_;
  std::optional<HostTopology> topology_;
  nlohmann::json placement_;  // last placement's vcpus, null until one arrives
  int requests_ = 0;
  GuestSettings settings_;  // what configure changed; put back when a session or the agent ends
};

}  // namespace topolab::agent
