#pragma once
// RAII owners for libvirt C handles and libvirt-allocated strings, and libvirt errors turned
// into our Error. All libvirt calls in topolab go through these.
#include <libvirt/libvirt.h>

#include <chrono>
#include <memory>
#include <string>

#include "common/result.hpp"

namespace topolab::virt {

struct ConnectDeleter {
  // virConnectClose returns the remaining reference count (>0 is fine) or -1.
  void operator()(virConnectPtr c) const noexcept { virConnectClose(c); }
};
struct DomainDeleter {
  void operator()(virDomainPtr d) const noexcept { virDomainFree(d); }
};
struct LibvirtStringDeleter {
  void operator()(char* s) const noexcept { free(s); }  // NOLINT: libvirt allocates with malloc
};

using ConnectPtr = std::unique_ptr<virConnect, ConnectDeleter>;
using DomainPtr = std::unique_ptr<virDomain, DomainDeleter>;
using LibvirtString = std::unique_ptr<char, LibvirtStringDeleter>;

// The last libvirt error on this thread, as "what: libvirt message".
Error last_libvirt_error(const std::string& what);

// Opens a read-write connection; uri empty means qemu:///system, as virsh.
Result<ConnectPtr> open_connection(const std::string& uri);
// The same, retried for up to `window` while libvirtd is not accepting (it is being restarted).
Result<ConnectPtr> open_connection_retrying(const std::string& uri,
                                            std::chrono::milliseconds window);
Result<std::string> get_capabilities(virConnectPtr conn);
Result<std::string> get_domain_capabilities(virConnectPtr conn, const std::string& virttype);

}  // namespace topolab::virt
