// The agent channel and the serial console of one boot. A local guest's channel is its UNIX
// socket in the run folder and its console a file QEMU writes there: the fast path, unchanged.
// A guest on a remote host (issue 16) has both on that host: they are read through libvirt's
// streams (virDomainOpenChannel, virDomainOpenConsole) bridged into a local socketpair and the
// local run folder's console.log, so the agent client, the boot watchdog (inotify on the run
// folder), console tails and kept attempt consoles work unchanged. A stream that ends (the
// connection lost, the domain gone) ends the agent's wait at once with the bridge's reason.
#include <sys/stat.h>

#include "orchestrator/guest/session/guest_session.hpp"
#include "orchestrator/libvirt/virt/boot_watchdog.hpp"
#include "orchestrator/libvirt/virt/domain_lifecycle.hpp"

namespace topolab {

Result<void> GuestSession::open_streams(const std::string& channel) {
  virDomainPtr dom = domain_->get();
  TL_ASSIGN(console_bridge_,
            virt::open_console_bridge(dom, run_dir_ / "console.log", virt::kMaxConsoleBytes));
  TL_ASSIGN(channel_bridge_, virt::open_channel_bridge(dom, channel, channel_fd_));
  return virt::resume_domain(dom);  // paused until now: the console has every line
}

Result<std::unique_ptr<AgentClient>> GuestSession::connect_agent(const std::string& live_xml,
                                                                 const std::string& channel,
                                                                 std::chrono::milliseconds timeout,
                                                                 AgentClient::Sync sync,
                                                                 std::string& where) {
  if (channel_bridge_) {
    where = channel + " (libvirt stream)";
    auto agent = AgentClient::adopt(std::move(channel_fd_), where, timeout, sync);
    if (agent) (*agent)->set_close_reason([b = channel_bridge_.get()] { return b->end_reason(); });
    return agent;
  }
  auto sock = virt::find_channel_socket(live_xml, channel);
  if (!sock) return sock.error().context("live XML of " + name_);
  where = sock->string();
  chmod(sock->c_str(), 0600);  // only root (topolab) talks to the agent
  return AgentClient::connect_unix(*sock, timeout, sync);
}

void GuestSession::close_streams() {
  channel_bridge_.reset();
  console_bridge_.reset();
  channel_fd_.reset();
}

}  // namespace topolab
