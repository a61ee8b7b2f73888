#include "orchestrator/virt/libvirt_handles.hpp"

#include <libvirt/virterror.h>

#include <thread>

namespace topolab::virt {
namespace {

// libvirt prints every error to stderr by default; we report them ourselves.
void silent_error_handler(void*, virErrorPtr) {}

}  // namespace

Error last_libvirt_error(const std::string& what) {
  virErrorPtr err = virGetLastError();
  std::string msg = err && err->message ? err->message : "unknown libvirt error";
  return Error{what + ": " + msg};
}

Result<ConnectPtr> open_connection(const std::string& uri) {
  virSetErrorFunc(nullptr, silent_error_handler);
  std::string target = uri.empty() ? "qemu:///system" : uri;
  virConnectPtr c = virConnectOpen(target.c_str());
  if (!c) return last_libvirt_error("cannot connect to " + target);
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
  if (!caps) return last_libvirt_error("virConnectGetCapabilities");
  return std::string(caps.get());
}

Result<std::string> get_domain_capabilities(virConnectPtr conn, const std::string& virttype) {
  LibvirtString caps(
      virConnectGetDomainCapabilities(conn, nullptr, "x86_64", nullptr, virttype.c_str(), 0));
  if (!caps) return last_libvirt_error("virConnectGetDomainCapabilities(" + virttype + ")");
  return std::string(caps.get());
}

}  // namespace topolab::virt
