#include "orchestrator/virt/libvirt_handles.hpp"

#include <libvirt/virterror.h>

#include <thread>

#include "orchestrator/logging/log.hpp"

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
  std::string target = uri.empty() ? "qemu:///system" : uri;
  CallTimer timer("virConnectOpen(" + target + ")");
  virConnectPtr c = virConnectOpen(target.c_str());
  if (!c) return capture_libvirt_error().context("cannot connect to " + target);
  return ConnectPtr(c);
}

Result<ConnectPtr> open_connection_retrying(const std::string& uri,
                                            std::chrono::milliseconds window) {
  auto deadline = std::chrono::steady_clock::now() + window;
  for (;;) {
    auto conn = open_connection(uri);
    if (conn || std::chrono::steady_clock::now() >= deadline) return conn;
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
