#include "orchestrator/libvirt/virt/libvirt_handles.hpp"

#include <libvirt/virterror.h>

#include <thread>

#include "orchestrator/base/logging/log.hpp"
#include "orchestrator/libvirt/virt/bounded_open.hpp"
#include "orchestrator/libvirt/virt/connection_uri.hpp"
#include "orchestrator/libvirt/virt/event_loop.hpp"

namespace topolab::virt {
namespace {

// libvirt prints every error to stderr by default; we report them ourselves.
void silent_error_handler(void*, virErrorPtr) {}

}  // namespace

LibvirtError capture_libvirt_error() {
  const virErrorPtr err = virGetLastError();  // thread-local; copied at once
  if (!err) return {0, "libvirt recorded no error for this failure"};
  std::string msg = err->message ? err->message : "";
  if (msg.empty()) msg = "libvirt error code " + std::to_string(err->code) + " without a message";
  logging::debug("libvirt error {}: {}", err->code, msg);
  return {err->code, std::move(msg)};
}

CallTimer::CallTimer(std::string what)
    : what_(std::move(what)), start_(std::chrono::steady_clock::now()) {}

CallTimer::~CallTimer() {
  logging::debug("libvirt {}: {} ms", what_,
                 std::chrono::duration_cast<std::chrono::milliseconds>(
                     std::chrono::steady_clock::now() - start_)
                     .count());
}

std::optional<LibvirtError> failed(int rc) {
  if (rc >= 0) return std::nullopt;
  return capture_libvirt_error();
}

Result<ConnectPtr> open_connection(const std::string& uri) {
  virSetErrorFunc(nullptr, silent_error_handler);
  auto parsed = parse_connection_uri(uri);
  if (!parsed) return parsed.error();
  const std::string& target = parsed->uri;
  (void)ensure_event_loop();  // before the open: only then does the connection deliver events
  CallTimer timer("virConnectOpen(" + target + ")");
  // Bounded: a host that accepts and never answers is one line, not a hang (bounded_open.hpp).
  auto opened = open_bounded(target, kConnectBound);
  if (!opened) return opened.error();
  ConnectPtr conn = std::move(opened).value();
  // A host that stops answering (cable, firewall, hung daemon) would otherwise block a call
  // until TCP gives up, minutes later. The keepalive runs on the event loop thread and closes
  // the connection after ~interval * (count + 1) s of silence; every call then fails at once.
  if (parsed->remote) {
    if (auto e = failed(virConnectSetKeepAlive(conn.get(), kKeepAliveIntervalS, kKeepAliveCount))) {
      logging::warn("{}: no keepalive ({}); a silent host is noticed only by TCP", target,
                    e->message);
    }
  }
  return conn;
}

std::string connection_uri(virConnectPtr conn) {
  LibvirtString uri(virConnectGetURI(conn));  // kept by the client: works on a dead connection
  return uri ? uri.get() : "";
}

bool through_remote_driver(virConnectPtr conn) {
  auto parsed = parse_connection_uri(connection_uri(conn));
  return parsed && parsed->remote;
}

std::optional<std::string> connection_lost(virConnectPtr conn, const std::string& failure) {
  if (conn == nullptr || virConnectIsAlive(conn) != 0) return std::nullopt;
  std::string name = connection_uri(conn);
  if (name.empty()) name = "the libvirt host";
  const bool keepalive = through_remote_driver(conn);  // only remote connections have one
  return "connection to " + name + " lost (closed" +
         (keepalive ? ", or no keepalive answer within " +
                          std::to_string(kKeepAliveIntervalS * (kKeepAliveCount + 1)) + " s"
                    : std::string()) +
         "): " + failure;
}

Result<ConnectPtr> open_connection_retrying(const std::string& uri,
                                            std::chrono::milliseconds window) {
  auto deadline = std::chrono::steady_clock::now() + window;
  for (;;) {
    auto conn = open_connection(uri);
    if (conn || conn.error().is(ErrorKind::input)) return conn;  // a bad URI stays bad
    if (std::chrono::steady_clock::now() >= deadline) return conn;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
}

Result<std::string> get_capabilities(virConnectPtr conn) {
  LibvirtString caps(virConnectGetCapabilities(conn));
  if (!caps) return capture_libvirt_error().context("virConnectGetCapabilities");
  return std::string(caps.get());
}

Result<std::string> get_domain_capabilities(virConnectPtr conn, const std::string& virttype) {
  LibvirtString caps(
      virConnectGetDomainCapabilities(conn, nullptr, "x86_64", nullptr, virttype.c_str(), 0));
  if (!caps) {
    return capture_libvirt_error().context("virConnectGetDomainCapabilities(" + virttype + ")");
  }
  return std::string(caps.get());
}

}  // namespace topolab::virt
