#pragma once
// RAII owners for libvirt C handles and libvirt-allocated strings, and libvirt errors turned
// into our Error. All libvirt calls in topolab go through these.
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include <chrono>
#include <memory>
#include <optional>
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
// One stream type for every libvirt stream topolab opens: the agent channel and console
// (stream_bridge.hpp) and the image uploads of remote/storage_upload.cpp.
struct StreamDeleter {
  void operator()(virStreamPtr s) const noexcept { virStreamFree(s); }
};
struct LibvirtStringDeleter {
  void operator()(char* s) const noexcept { free(s); }  // NOLINT: libvirt allocates with malloc
};

using ConnectPtr = std::unique_ptr<virConnect, ConnectDeleter>;
using DomainPtr = std::unique_ptr<virDomain, DomainDeleter>;
using StreamPtr = std::unique_ptr<virStream, StreamDeleter>;
using LibvirtString = std::unique_ptr<char, LibvirtStringDeleter>;

// libvirt's error for the call that just failed, copied out of libvirt. Every libvirt API entry
// (even virDomainGetName) resets the thread's last error, so it must be copied before anything
// else runs; the context is added afterwards from data already in hand:
//   if (auto e = failed(virDomainCreate(dom))) return e->context("virDomainCreate(" + name + ")");
//   if (!ptr) return capture_libvirt_error().context("...");  // C++17: object before argument
// There is deliberately no "make an Error from the last error with this text" function: its
// argument (often built with another libvirt call) would run before the capture.
struct LibvirtError {
  int code = 0;  // virErrorNumber; 0 when libvirt recorded none
  std::string message;
  bool is(int c) const { return code == c; }
  // A domain libvirt does not know is the user's missing thing (exit 66), any other failure
  // libvirt's (69).
  Error context(const std::string& what) const {
    return Error{what + ": " + message,
                 code == VIR_ERR_NO_DOMAIN ? ErrorKind::not_found : ErrorKind::libvirt};
  }
};
LibvirtError capture_libvirt_error();
// For calls that return an int status: the captured error when rc < 0, else nullopt.
std::optional<LibvirtError> failed(int rc);

// Logs a libvirt call and how long it took to the run log (debug), when it goes out of scope:
//   CallTimer timer("virDomainCreate(" + name + ")");  // build the text before the call
// Its failure, if any, is logged by capture_libvirt_error.
class CallTimer {
 public:
  explicit CallTimer(std::string what);
  ~CallTimer();
  CallTimer(const CallTimer&) = delete;
  CallTimer& operator=(const CallTimer&) = delete;

 private:
  std::string what_;
  std::chrono::steady_clock::time_point start_;
};

// Keepalive of remote connections (virConnectSetKeepAlive): a ping every interval, the
// connection closed after `count` unanswered ones (a silent host fails calls within ~8 s).
inline constexpr int kKeepAliveIntervalS = 2;
inline constexpr unsigned kKeepAliveCount = 3;

// Opens a read-write connection; uri empty means qemu:///system, as virsh. The URI is checked
// first (connection_uri.hpp: a typo'd driver or transport is one line, nothing is contacted);
// remote connections get the keepalive above. The open itself is bounded (kConnectBound in
// bounded_open.hpp): a silent or black-holed host fails in one line naming the URI.
Result<ConnectPtr> open_connection(const std::string& uri);
// When `conn` is closed (the peer hung up, the network dropped it, the keepalive gave up):
// "connection to URI lost (...): <failure>", the reason a failed call should report instead of
// libvirt's bare "client socket is closed". nullopt while the connection is alive. Why not a
// close callback (virConnectRegisterCloseCallback): it holds a reference on the connection
// until unregistered, and handles are shared (DomainRegistry keeps its own reference); the
// liveness query needs no bookkeeping and is answered locally.
std::optional<std::string> connection_lost(virConnectPtr conn, const std::string& failure);
// The URI `conn` was opened with ("" when libvirt cannot say).
std::string connection_uri(virConnectPtr conn);
// Whether `conn` goes through libvirt's remote driver (its URI names a host or a network
// transport): the guest's files are on that host, and the connection has a keepalive.
bool through_remote_driver(virConnectPtr conn);
// The same, retried for up to `window` while libvirtd is not accepting (it is being restarted).
Result<ConnectPtr> open_connection_retrying(const std::string& uri,
                                            std::chrono::milliseconds window);
Result<std::string> get_capabilities(virConnectPtr conn);
Result<std::string> get_domain_capabilities(virConnectPtr conn, const std::string& virttype);

}  // namespace topolab::virt
