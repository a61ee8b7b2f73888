#include "orchestrator/guest/session/guest_session.hpp"

#include <chrono>

#include "orchestrator/libvirt/virt/domain_lifecycle.hpp"

namespace topolab {

// The boot's steps are in guest_session_boot.cpp, its retries in guest_session_retry.cpp.

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
  const auto t0 = std::chrono::steady_clock::now();
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
  timings_["shutdown_ms"] =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0)
          .count();
  timings_["shutdown_by"] = by;
  logging::debug("shutdown of {}: {} ms, ended by {}{}", name_,
                 timings_["shutdown_ms"].get<long long>(), by,
                 problems.empty() ? std::string() : " (" + problems + ")");
  if (!removed) return removed.error();
  if (!problems.empty())
    return make_error(ErrorKind::guest, "shutdown of " + name_ + ": " + problems);
  return {};
}

}  // namespace topolab
