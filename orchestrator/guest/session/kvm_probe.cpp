#include "orchestrator/guest/session/kvm_probe.hpp"

#include <sys/stat.h>

#include <fstream>
#include <pugixml.hpp>
#include <sstream>
#include <thread>

#include "common/accelerator.hpp"
#include "common/file_io.hpp"
#include "orchestrator/guest/agent/agent_client.hpp"
#include "orchestrator/libvirt/virt/boot_watchdog.hpp"
#include "orchestrator/libvirt/virt/connection_uri.hpp"
#include "orchestrator/libvirt/virt/domain_lifecycle.hpp"
#include "orchestrator/libvirt/virt/domain_registry.hpp"
#include "orchestrator/libvirt/virt/run_identity.hpp"
#include "orchestrator/libvirt/virt/stream_bridge.hpp"

namespace topolab::session {
using namespace virt;  // the libvirt layer this code drives (it lived in virt:: before)
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

std::string without_quiet(const std::string& cmdline) {
  std::istringstream in(cmdline);
  std::string word, out;
  while (in >> word) {
    if (word == "quiet") continue;
    out += (out.empty() ? "" : " ") + word;
  }
  return out;
}

std::uintmax_t file_size_or_zero(const std::filesystem::path& p) {
  std::error_code ec;
  auto n = std::filesystem::file_size(p, ec);
  return ec ? 0 : n;
}

long long ms_since(Clock::time_point t0) {
  return std::chrono::duration_cast<milliseconds>(Clock::now() - t0).count();
}

// The console into `console` (local, 0600) and the agent channel to `fd`, then resume: as
// GuestSession::open_streams for a remote boot.
Result<void> open_probe_streams(virDomainPtr dom, const std::filesystem::path& console,
                                const std::string& channel,
                                std::unique_ptr<StreamBridge>& console_bridge,
                                std::unique_ptr<StreamBridge>& channel_bridge, OwnedFd& fd) {
  TL_ASSIGN(console_bridge, open_console_bridge(dom, console, kMaxConsoleBytes));
  TL_ASSIGN(channel_bridge, open_channel_bridge(dom, channel, fd));
  return resume_domain(dom);
}

// The probe's own folder (0700); the error is the verdict's reason.
Result<void> make_probe_folder(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return make_error(ErrorKind::io, "probe folder " + dir.string() + ": " + ec.message());
  chmod(dir.c_str(), 0700);
  return {};
}

// The probe's domain XML, kept in its folder as probe.xml; the error is the verdict's reason.
Result<std::string> write_probe_xml(const KvmProbeOptions& o, const std::filesystem::path& console,
                                    const std::filesystem::path& socket) {
  std::string name = domain_name_for("kvmprobe", o.run_id);
  auto xml = add_run_metadata(kvm_probe_domain_xml(name, o.image, console, socket),
                              current_run_owner(o.run_id));
  if (!xml) return xml.error().context("probe XML");
  (void)write_file_atomic(o.work_dir / "probe.xml", *xml, 0600);
  return xml;
}

// A hung KVM guest is silent: the serial console is watched before the agent is waited for.
// The verdict when it stays empty for console_bound; nothing when it printed.
std::optional<KvmVerdict> silent_console(const std::filesystem::path& console,
                                         Clock::time_point start, const KvmProbeOptions& o,
                                         bool streams, const std::string& via) {
  while (file_size_or_zero(console) == 0) {
    if (Clock::now() - start >= o.console_bound) {
      return KvmVerdict{false,
                        "KVM guest printed nothing on its serial console within " +
                            std::to_string(o.console_bound.count()) +
                            " ms (nested KVM hangs guests " + (streams ? "on that host" : "here") +
                            "); using TCG" + via,
                        /*hung=*/true};
    }
    std::this_thread::sleep_for(milliseconds(25));
  }
  return std::nullopt;
}

// How the probe reaches its agent: the bridged stream (remote) or the local socket.
struct ProbeChannel {
  bool streams = false;
  OwnedFd fd;                      // the channel bridge's local end (remote)
  StreamBridge* bridge = nullptr;  // says why a stream ended (remote)
  std::filesystem::path socket;    // local
};

// The agent's hello within `deadline`, then its shutdown: the probe's verdict.
KvmVerdict probe_hello(ProbeChannel& channel, Clock::time_point deadline, Clock::time_point t0,
                       const KvmProbeOptions& o, const std::string& via) {
  auto remaining = [&] {
    return std::max(milliseconds(1),
                    std::chrono::duration_cast<milliseconds>(deadline - Clock::now()));
  };
  std::ofstream transcript(o.work_dir / "probe-agent.log");  // outlives the client
  auto agent = channel.streams
                   ? AgentClient::adopt(std::move(channel.fd), "KVM probe channel (libvirt stream)",
                                        remaining())
                   : AgentClient::connect_unix(channel.socket, remaining());
  if (!agent) {
    return {false, "KVM probe: agent channel: " + agent.error().message + "; using TCG" + via,
            /*hung=*/true};
  }
  (*agent)->set_transcript(&transcript);
  if (channel.bridge) {  // a stream that ended says why (the connection lost, the domain gone)
    (*agent)->set_close_reason([b = channel.bridge] { return b->end_reason(); });
  }
  auto hello = (*agent)->wait_hello(remaining());
  if (!hello) {
    return {false,
            "KVM guest did not reach the agent within " + std::to_string(o.bound.count()) +
                " ms (" + hello.error().message + "); using TCG" + via,
            /*hung=*/true};
  }
  (void)(*agent)->shutdown();
  return {true, "a KVM probe guest said hello after " + std::to_string(ms_since(t0)) + " ms" + via};
}

}  // namespace

std::string kvm_probe_domain_xml(const std::string& name, const GuestImage& image,
                                 const std::filesystem::path& serial_log,
                                 const std::filesystem::path& socket) {
  pugi::xml_document doc;
  auto d = doc.append_child("domain");
  d.append_attribute("type") = libvirt_domain_type(Accelerator::kKvm);
  d.append_child("name").text() = name.c_str();
  auto mem = d.append_child("memory");
  mem.append_attribute("unit") = "MiB";
  mem.text() = "256";
  d.append_child("vcpu").text() = "1";
  auto os = d.append_child("os");
  auto type = os.append_child("type");
  type.append_attribute("arch") = "x86_64";
  type.text() = "hvm";
  os.append_child("kernel").text() = image.kernel.c_str();
  os.append_child("initrd").text() = image.initrd.c_str();
  os.append_child("cmdline").text() = without_quiet(image.cmdline).c_str();
  d.append_child("features").append_child("acpi");
  for (const char* ev : {"on_poweroff", "on_reboot", "on_crash"}) {
    d.append_child(ev).text() = "destroy";
  }
  auto dev = d.append_child("devices");
  auto serial = dev.append_child("serial");
  serial.append_attribute("type") = serial_log.empty() ? "pty" : "file";
  if (!serial_log.empty())
    serial.append_child("source").append_attribute("path") = serial_log.c_str();
  serial.append_child("target").append_attribute("port") = "0";
  auto ch = dev.append_child("channel");
  ch.append_attribute("type") = "unix";
  auto src = ch.append_child("source");
  src.append_attribute("mode") = "bind";
  if (!socket.empty()) src.append_attribute("path") = socket.c_str();
  auto target = ch.append_child("target");
  target.append_attribute("type") = "virtio";
  target.append_attribute("name") = image.agent_port_name.c_str();
  dev.append_child("memballoon").append_attribute("model") = "none";
  std::ostringstream out;
  doc.save(out, "  ");
  return out.str();
}

KvmVerdict probe_kvm(virConnectPtr conn, const KvmProbeOptions& o) {
  auto t0 = Clock::now();
  if (auto made = make_probe_folder(o.work_dir); !made) return {false, made.error().message};
  auto console = o.work_dir / "probe-console.log";
  auto socket = o.work_dir / "probe-agent.sock";
  const bool streams = through_remote_driver(conn);
  const std::string via =
      streams ? " (through libvirt streams of " + redacted_uri(connection_uri(conn)) + ")" : "";
  auto xml = write_probe_xml(o, streams ? std::filesystem::path() : console,
                             streams ? std::filesystem::path() : socket);
  if (!xml) return {false, xml.error().message};

  auto dom = OwnedDomain::define(conn, *xml);
  if (!dom) return {false, "KVM probe guest could not be defined: " + dom.error().message};
  // Remote: started paused, its console and channel bridged, then resumed (no line missed).
  // Declared after `dom`: the bridges end before the domain is destroyed.
  std::unique_ptr<StreamBridge> console_bridge, channel_bridge;
  OwnedFd channel_fd;
  if (auto r = start_domain(dom->get(), /*paused=*/streams); !r) {
    return {false, "KVM probe guest failed to start: " + r.error().message + via};
  }
  if (streams) {
    auto opened = open_probe_streams(dom->get(), console, o.image.agent_port_name, console_bridge,
                                     channel_bridge, channel_fd);
    if (!opened) return {false, "KVM probe guest's streams: " + opened.error().message + via};
  }
  auto start = Clock::now();
  if (auto silent = silent_console(console, start, o, streams, via)) return *silent;
  ProbeChannel channel{streams, std::move(channel_fd), channel_bridge.get(), socket};
  return probe_hello(channel, start + o.bound, t0, o, via);
}

}  // namespace topolab::session
