#pragma once
// How the agent reaches the host: a virtio-serial port (the guest's normal case) or a listening
// UNIX or loopback TCP socket (host-local runs and tests). transport_linux.cpp and
// transport_windows.cpp implement it. Sessions: wait_for_host() returns when a host is
// there; read_some() reports kHangup when it leaves; the agent then waits again.
// Bounds (issue 12): one host at a time. A UNIX-socket client that connects while another is
// served gets one error line ("busy: ...") and is closed at once; write_all() gives up after its
// timeout, so a host that does not read cannot hold the agent (the agent ends the session).
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace topolab::agent {

enum class ReadStatus { kData, kTimeout, kHangup };

class Transport {
 public:
  virtual ~Transport() = default;
  // Blocks until a host is connected. virtio-serial: while the port reports HUP (no host),
  // backs off 100 ms -> 1 s and polls again, never exits or spins. UNIX: accepts one client.
  virtual Result<void> wait_for_host() = 0;
  // Appends what arrived within timeout_ms to out.
  virtual Result<ReadStatus> read_some(std::string& out, int timeout_ms) = 0;
  // Writes everything within timeout_ms (-1: no limit); error "... did not read ..." on expiry.
  virtual Result<void> write_all(std::string_view bytes, int timeout_ms) = 0;
  virtual void end_session() = 0;
  virtual std::string describe() const = 0;
};

// /sys/class/virtio-ports/*/name == name -> /dev/<vportNpM>; else /dev/virtio-ports/NAME.
Result<std::filesystem::path> find_virtio_port(const std::string& name,
                                               const std::filesystem::path& sys_root = "/sys",
                                               const std::filesystem::path& dev_root = "/dev");
// Waits (backing off, bounded per try) until the named port exists, then opens it.
Result<std::unique_ptr<Transport>> open_virtio_port_by_name(const std::string& name);
// Opens a character device (virtio-serial port); retries while another opener holds it.
Result<std::unique_ptr<Transport>> open_virtio_port(const std::filesystem::path& device);
// Listens on a UNIX socket (mode 0600); a stale socket file at path is replaced.
Result<std::unique_ptr<Transport>> listen_unix(const std::filesystem::path& path);
// Listens on 127.0.0.1:port (loopback only: the protocol has no authentication) and serves one
// client at a time: the Windows agent's test transport, since wine 8 has no AF_UNIX sockets.
Result<std::unique_ptr<Transport>> listen_tcp_loopback(std::uint16_t port);

}  // namespace topolab::agent
