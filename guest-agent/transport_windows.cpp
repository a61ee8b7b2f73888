// Windows side of transport.hpp: the virtio-win vioser port (\\.\Global\NAME) and Winsock
// listening sockets (loopback TCP; AF_UNIX where the OS has it: Windows 10 1803+, not wine 8).
// Order matters: winsock2.h before windows.h, afunix.h (needs ADDRESS_FAMILY) and winioctl.h
// after both.
// clang-format off
#include <winsock2.h>
#include <ws2tcpip.h>
#include <windows.h>
#include <afunix.h>
#include <winioctl.h>
// clang-format on

#include <algorithm>
#include <chrono>
#include <cstring>
#include <iostream>
#include <thread>

#include "guest-agent/transport.hpp"
#include "guest-agent/transport_shared.hpp"
#include "guest-agent/windows_support.hpp"

namespace topolab::agent {

namespace fs = std::filesystem;

namespace {

std::string wsa_error(const char* call) { return win::error_text(call, WSAGetLastError()); }

timeval to_timeval(int ms) { return timeval{ms / 1000, (ms % 1000) * 1000}; }

void set_non_blocking(SOCKET s) {
  u_long non_blocking = 1;
  ioctlsocket(s, FIONBIO, &non_blocking);
}

// Waits up to timeout_ms (-1: no limit) until `s` is readable or writable (`for_write`) or, when
// `listener` is a socket, a connection waits on it; the readiness of each, or the error.
struct Ready {
  bool socket = false;
  bool listener = false;
};
Result<Ready> wait_ready(SOCKET s, bool for_write, SOCKET listener, int timeout_ms) {
  fd_set readable;
  fd_set writable;
  FD_ZERO(&readable);
  FD_ZERO(&writable);
  FD_SET(s, for_write ? &writable : &readable);
  if (listener != INVALID_SOCKET) FD_SET(listener, &readable);
  timeval tv = to_timeval(timeout_ms);
  int rc = select(0, &readable, for_write ? &writable : nullptr, nullptr,
                  timeout_ms < 0 ? nullptr : &tv);
  if (rc == SOCKET_ERROR) return make_error(ErrorKind::io, wsa_error("select"));
  Ready r;
  r.socket = rc > 0 && FD_ISSET(s, for_write ? &writable : &readable);
  r.listener = rc > 0 && listener != INVALID_SOCKET && FD_ISSET(listener, &readable);
  return r;
}

// Whether a readable client has left: an orderly close reads as 0 bytes, a reset as an error;
// data waiting (or nothing yet) means it is still there. Peeks, so nothing is consumed.
bool client_left(SOCKET client) {
  char byte = 0;
  int n = recv(client, &byte, 1, MSG_PEEK);
  return n == 0 || (n == SOCKET_ERROR && WSAGetLastError() != WSAEWOULDBLOCK);
}

// One client at a time on a listening Winsock socket (the Linux ListeningSocketTransport's
// rules, transport_shared.hpp): a second client gets one "busy" error line and is closed while
// the agent waits for input, reads a client that keeps writing, or waits to write to one that
// does not read; writes are bounded.
class SocketTransport : public Transport {
 public:
  SocketTransport(SOCKET listener, std::string what) : listener_(listener), what_(std::move(what)) {
    set_non_blocking(listener_);  // refuse_waiting_client must never block in accept
  }
  ~SocketTransport() override {
    end_session();
    closesocket(listener_);
  }

  Result<void> wait_for_host() override {
    end_session();
    for (;;) {
      fd_set readable;
      FD_ZERO(&readable);
      FD_SET(listener_, &readable);
      if (select(0, &readable, nullptr, nullptr, nullptr) == SOCKET_ERROR)
        return make_error(ErrorKind::io, wsa_error(("select on " + what_).c_str()));
      SOCKET s = accept(listener_, nullptr, nullptr);
      if (s != INVALID_SOCKET) {
        set_non_blocking(s);  // so a host that does not read cannot block write_all
        client_ = s;
        return {};
      }
      const int err = WSAGetLastError();
      if (err == WSAECONNRESET || err == WSAEINTR || err == WSAEWOULDBLOCK) continue;
      return make_error(ErrorKind::io, wsa_error(("accept on " + what_).c_str()));
    }
  }

  Result<ReadStatus> read_some(std::string& out, int timeout_ms) override {
    if (client_ == INVALID_SOCKET) return ReadStatus::kHangup;
    // The listener is watched too: a second client is refused at once.
    TL_ASSIGN(const Ready ready, wait_ready(client_, false, listener_, timeout_ms));
    if (!ready.socket && !ready.listener) return ReadStatus::kTimeout;
    // The current host first: when it has just closed and reconnected, the new connection is
    // the next session, not a second client to refuse. One that keeps writing is always
    // readable, and is no reason to leave the other waiting.
    if (refuse_second_client(ready.listener, ready.socket && client_left(client_)))
      refuse_waiting_client();
    if (!ready.socket) return ReadStatus::kTimeout;
    char buf[65536];
    int n = recv(client_, buf, sizeof(buf), 0);
    if (n > 0) {
      out.append(buf, static_cast<std::size_t>(n));
      return ReadStatus::kData;
    }
    if (n == SOCKET_ERROR && WSAGetLastError() == WSAEWOULDBLOCK) return ReadStatus::kTimeout;
    return ReadStatus::kHangup;  // 0: orderly close; error: reset
  }

  Result<void> write_all(std::string_view bytes, int timeout_ms) override {
    if (client_ == INVALID_SOCKET) return make_error(ErrorKind::io, "no host connected");
    const WriteDeadline deadline(timeout_ms);
    std::size_t done = 0;
    while (done < bytes.size()) {
      int chunk = static_cast<int>(std::min<std::size_t>(bytes.size() - done, 1 << 20));
      int n = send(client_, bytes.data() + done, chunk, 0);
      if (n > 0) {
        done += static_cast<std::size_t>(n);
        continue;
      }
      if (n == 0 || WSAGetLastError() != WSAEWOULDBLOCK)
        return make_error(ErrorKind::io, wsa_error("send"));
      TL_ASSIGN(const int wait_ms, deadline.wait_ms(bytes.size() - done));
      // While the host does not read, a client waiting on the listener is answered, not left
      // in the backlog for the whole write bound.
      TL_ASSIGN(const Ready ready, wait_ready(client_, true, listener_, wait_ms));
      if (refuse_second_client(ready.listener, false)) refuse_waiting_client();
    }
    return {};
  }

  void end_session() override {
    if (client_ != INVALID_SOCKET) closesocket(client_);
    client_ = INVALID_SOCKET;
  }
  std::string describe() const override { return what_; }

 private:
  void refuse_waiting_client() {
    SOCKET s = accept(listener_, nullptr, nullptr);
    if (s == INVALID_SOCKET) return;
    set_non_blocking(s);  // a fresh connection's buffer has room for the line: never waits
    const std::string& line = busy_reply_line();
    send(s, line.data(), static_cast<int>(line.size()), 0);
    // Closing with unread input would reset the connection and could drop the line: read what
    // the client already sent, then close.
    char sink[4096];
    for (int i = 0; i < 16 && recv(s, sink, sizeof(sink), 0) > 0; ++i) {
    }
    shutdown(s, SD_SEND);
    closesocket(s);
  }

  SOCKET listener_;
  SOCKET client_ = INVALID_SOCKET;
  std::string what_;
};

// vioser's IOCTL_GET_INFORMATION (virtio-win vioserial/sys/public.h): whether a host has the
// port open. Drivers without it fail the ioctl; the port is then taken as connected.
constexpr DWORD kIoctlGetInformation =
    CTL_CODE(FILE_DEVICE_UNKNOWN, 0x800, METHOD_BUFFERED, FILE_ANY_ACCESS);
struct VirtioPortInfo {
  UINT id;
  BOOLEAN out_vq_full;
  BOOLEAN host_connected;
  BOOLEAN guest_connected;
  CHAR name[1];
};

// The port is opened per session and closed when the host goes, so a host that reconnects
// (or a driver that was reloaded) always meets a fresh handle.
class VirtioPortTransport : public Transport {
 public:
  explicit VirtioPortTransport(std::string path) : path_(std::move(path)) {}
  ~VirtioPortTransport() override { end_session(); }

  Result<void> wait_for_host() override {
    end_session();
    Backoff backoff;
    bool reported = false;
    for (;;) {
      if (idle_sessions_ > 0) std::this_thread::sleep_for(backoff.delay());
      handle_ = CreateFileW(win::widen(path_).c_str(), GENERIC_READ | GENERIC_WRITE, 0, nullptr,
                            OPEN_EXISTING, FILE_FLAG_OVERLAPPED, nullptr);
      if (handle_ != INVALID_HANDLE_VALUE && host_connected()) return {};
      if (handle_ == INVALID_HANDLE_VALUE && !reported) {
        // Missing until the vioser driver has started; busy while another opener holds it.
        std::cerr << "topolab-agent: " << win::last_error(("open " + path_).c_str())
                  << "; waiting for it\n";
        reported = true;
      }
      end_session();
      backoff.sleep();
    }
  }

  Result<ReadStatus> read_some(std::string& out, int timeout_ms) override {
    if (handle_ == INVALID_HANDLE_VALUE) return ReadStatus::kHangup;
    char buf[65536];
    DWORD n = 0;
    auto done = overlapped_io(false, buf, sizeof(buf), timeout_ms < 0 ? INFINITE : timeout_ms, n);
    if (!done) return ReadStatus::kHangup;
    if (*done == WAIT_TIMEOUT && n == 0) return ReadStatus::kTimeout;
    if (n == 0) {
      ++idle_sessions_;  // vioser completes reads with 0 bytes while no host is connected
      return ReadStatus::kHangup;
    }
    idle_sessions_ = 0;
    out.append(buf, n);
    return ReadStatus::kData;
  }

  Result<void> write_all(std::string_view bytes, int timeout_ms) override {
    const DWORD timeout = timeout_ms < 0 ? INFINITE : static_cast<DWORD>(timeout_ms);
    std::size_t done = 0;
    while (done < bytes.size()) {
      DWORD n = 0;
      DWORD chunk = static_cast<DWORD>(std::min<std::size_t>(bytes.size() - done, 1 << 16));
      auto r = overlapped_io(true, const_cast<char*>(bytes.data() + done), chunk, timeout, n);
      if (!r) return r.error();
      if (n == 0)
        return make_error(ErrorKind::io, "write " + path_ + ": nothing written (host gone?)");
      done += n;
    }
    return {};
  }

  void end_session() override {
    if (handle_ != INVALID_HANDLE_VALUE) CloseHandle(handle_);
    handle_ = INVALID_HANDLE_VALUE;
  }
  std::string describe() const override { return "virtio-serial port " + path_; }

 private:
  bool host_connected() {
    char info[512] = {};
    DWORD got = 0;
    if (!DeviceIoControl(handle_, kIoctlGetInformation, nullptr, 0, info, sizeof(info), &got,
                         nullptr) ||
        got < offsetof(VirtioPortInfo, name))
      return true;
    return reinterpret_cast<const VirtioPortInfo*>(info)->host_connected != 0;
  }

  // One ReadFile/WriteFile bounded by timeout_ms; the wait result (WAIT_OBJECT_0 or
  // WAIT_TIMEOUT) and the bytes moved, or an error when the I/O failed.
  Result<DWORD> overlapped_io(bool write, char* data, DWORD size, DWORD timeout_ms, DWORD& moved) {
    OVERLAPPED ov{};
    ov.hEvent = CreateEventW(nullptr, TRUE, FALSE, nullptr);
    if (!ov.hEvent) return make_error(ErrorKind::io, win::last_error("CreateEvent"));
    BOOL ok = write ? WriteFile(handle_, data, size, nullptr, &ov)
                    : ReadFile(handle_, data, size, nullptr, &ov);
    DWORD waited = WAIT_OBJECT_0;
    if (!ok && GetLastError() != ERROR_IO_PENDING) {
      std::string err = win::last_error(write ? "WriteFile" : "ReadFile");
      CloseHandle(ov.hEvent);
      return make_error(ErrorKind::io, err + " on " + path_);
    }
    if (!ok) {
      waited = WaitForSingleObject(ov.hEvent, timeout_ms);
      if (waited != WAIT_OBJECT_0) CancelIoEx(handle_, &ov);
    }
    BOOL finished = GetOverlappedResult(handle_, &ov, &moved, TRUE);
    DWORD err = GetLastError();
    CloseHandle(ov.hEvent);
    if (!finished && err != ERROR_OPERATION_ABORTED) {
      return make_error(ErrorKind::io,
                        win::error_text(write ? "WriteFile" : "ReadFile", err) + " on " + path_);
    }
    if (write && waited != WAIT_OBJECT_0 && moved == 0) {
      return make_error(ErrorKind::io, "the host did not read " + path_ + " within " +
                                           std::to_string(timeout_ms) + " ms");
    }
    return waited == WAIT_OBJECT_0 ? DWORD{WAIT_OBJECT_0} : DWORD{WAIT_TIMEOUT};
  }

  std::string path_;
  HANDLE handle_ = INVALID_HANDLE_VALUE;
  int idle_sessions_ = 0;  // consecutive sessions that ended without data: back off
};

Result<std::unique_ptr<Transport>> listen_socket(int family, const sockaddr* addr, int len,
                                                 const std::string& what) {
  SOCKET s = socket(family, SOCK_STREAM, 0);
  if (s == INVALID_SOCKET) {
    return make_error(ErrorKind::io,
                      wsa_error(("socket for " + what).c_str()) +
                          (family == AF_UNIX ? " (wine 8 has no AF_UNIX: use --tcp PORT)" : ""));
  }
  // Exclusive: another program must not bind the same port and take the host's connections.
  BOOL one = TRUE;
  setsockopt(s, SOL_SOCKET, SO_EXCLUSIVEADDRUSE, reinterpret_cast<const char*>(&one), sizeof(one));
  if (bind(s, addr, len) != 0 || listen(s, 4) != 0) {
    std::string err = wsa_error(("listen on " + what).c_str());
    closesocket(s);
    return make_error(ErrorKind::io, err);
  }
  return std::unique_ptr<Transport>(new SocketTransport(s, what));
}

}  // namespace

Result<fs::path> find_virtio_port(const std::string& name, const fs::path&, const fs::path&) {
  return fs::path("\\\\.\\Global\\" + name);
}

Result<std::unique_ptr<Transport>> open_virtio_port(const fs::path& device) {
  return std::unique_ptr<Transport>(new VirtioPortTransport(device.string()));
}

Result<std::unique_ptr<Transport>> open_virtio_port_by_name(const std::string& name) {
  if (name.empty() || name.find_first_of("\\/:*?\"<>|") != std::string::npos) {
    return make_error(ErrorKind::input,
                      "virtio-serial port name '" + name + "' is empty or has path characters");
  }
  return open_virtio_port(*find_virtio_port(name, {}, {}));
}

Result<std::unique_ptr<Transport>> listen_unix(const fs::path& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string p = path.string();
  TL_TRY(copy_socket_path(addr.sun_path, sizeof(addr.sun_path), p));
  // A stale socket from an earlier run is a reparse point; anything else is not replaced.
  DWORD attrs = GetFileAttributesW(win::widen(p).c_str());
  if (attrs != INVALID_FILE_ATTRIBUTES) {
    if (!(attrs & FILE_ATTRIBUTE_REPARSE_POINT))
      return make_error(ErrorKind::input, p + " exists and is not a socket; not replacing it");
    DeleteFileW(win::widen(p).c_str());
  }
  return listen_socket(AF_UNIX, reinterpret_cast<sockaddr*>(&addr), sizeof(addr),
                       "UNIX socket " + p);
}

Result<std::unique_ptr<Transport>> listen_tcp_loopback(std::uint16_t port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return listen_socket(AF_INET, reinterpret_cast<sockaddr*>(&addr), sizeof(addr),
                       "TCP 127.0.0.1:" + std::to_string(port));
}

}  // namespace topolab::agent
