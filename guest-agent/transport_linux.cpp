#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>

#include "common/file_io.hpp"
#include "common/owned_fd.hpp"
#include "guest-agent/transport.hpp"
#include "guest-agent/transport_shared.hpp"

namespace topolab::agent {

namespace fs = std::filesystem;

namespace {

std::string errno_text() { return std::strerror(errno); }

// While a write waits for room, a listening socket's waiting clients are answered (a client that
// writes requests and never reads held the agent in this wait for the whole write bound, and
// every other client in the backlog with it): `listen_fd` < 0 when there is none.
struct WaitingClients {
  int listen_fd = -1;
  void (*refuse)(int listen_fd) = nullptr;
};

// The fd is non-blocking: waits for room with poll so a peer that does not read costs at most
// timeout_ms (-1: no limit), then gives up.
Result<void> write_fd(int fd, std::string_view bytes, bool is_socket, int timeout_ms,
                      WaitingClients waiting = {}) {
  const WriteDeadline deadline(timeout_ms);
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = is_socket ? ::send(fd, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL)
                          : ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n > 0) {
      done += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      TL_ASSIGN(const int wait_ms, deadline.wait_ms(bytes.size() - done));
      pollfd ps[2] = {{fd, POLLOUT, 0}, {waiting.listen_fd, POLLIN, 0}};
      const pollfd& p = ps[0];
      int rc = ::poll(ps, waiting.listen_fd >= 0 ? 2 : 1, wait_ms);
      if (rc < 0 && errno != EINTR) return make_error(ErrorKind::io, "poll: " + errno_text());
      if (rc > 0 && waiting.listen_fd >= 0 && (ps[1].revents & POLLIN))
        waiting.refuse(waiting.listen_fd);
      // A virtio port without a host reports HUP and never POLLOUT: give up now, not spin.
      if (rc > 0 && !(p.revents & POLLOUT) && (p.revents & (POLLHUP | POLLERR | POLLNVAL))) {
        return make_error(ErrorKind::io, "the host went away with " +
                                             std::to_string(bytes.size() - done) + " bytes unsent");
      }
      continue;
    }
    return make_error(ErrorKind::io,
                      "write: " + (n == 0 ? std::string("nothing written") : errno_text()));
  }
  return {};
}

void set_nonblocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

class VirtioPortTransport : public Transport {
 public:
  VirtioPortTransport(OwnedFd fd, fs::path path) : fd_(std::move(fd)), path_(std::move(path)) {
    set_nonblocking(fd_.get());  // writes are bounded by write_all's timeout
  }

  Result<void> wait_for_host() override {
    Backoff backoff;
    for (;;) {
      pollfd p{fd_.get(), POLLOUT, 0};
      int rc = ::poll(&p, 1, static_cast<int>(Backoff::kMax.count()));
      if (rc < 0 && errno != EINTR)
        return make_error(ErrorKind::io, "poll " + path_.string() + ": " + errno_text());
      if (rc > 0 && !(p.revents & (POLLHUP | POLLERR | POLLNVAL))) return {};
      if (rc > 0 && (p.revents & POLLNVAL))
        return make_error(ErrorKind::io, path_.string() + ": invalid fd");
      // No host on the other end: the port reports HUP at once, so sleep instead of spinning.
      if (rc > 0) backoff.sleep();
    }
  }

  Result<ReadStatus> read_some(std::string& out, int timeout_ms) override {
    pollfd p{fd_.get(), POLLIN, 0};
    int rc = ::poll(&p, 1, timeout_ms);
    if (rc < 0) {
      if (errno == EINTR) return ReadStatus::kTimeout;
      return make_error(ErrorKind::io, "poll " + path_.string() + ": " + errno_text());
    }
    if (rc == 0) return ReadStatus::kTimeout;
    if (p.revents & POLLIN) {
      char buf[65536];
      ssize_t n = ::read(fd_.get(), buf, sizeof(buf));
      if (n > 0) {
        out.append(buf, static_cast<std::size_t>(n));
        return ReadStatus::kData;
      }
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) return ReadStatus::kTimeout;
      return ReadStatus::kHangup;  // 0: the host side is not connected
    }
    return ReadStatus::kHangup;
  }

  Result<void> write_all(std::string_view bytes, int timeout_ms) override {
    return write_fd(fd_.get(), bytes, false, timeout_ms);
  }
  void end_session() override {}
  std::string describe() const override { return "virtio-serial port " + path_.string(); }

 private:
  OwnedFd fd_;
  fs::path path_;
};

// A listening socket serving one client at a time: UNIX (path_ is its file, removed at the end)
// or loopback TCP (path_ empty).
class ListeningSocketTransport : public Transport {
 public:
  ListeningSocketTransport(OwnedFd listen_fd, fs::path path, std::string what)
      : listen_fd_(std::move(listen_fd)), path_(std::move(path)), what_(std::move(what)) {
    set_nonblocking(listen_fd_.get());  // refuse_waiting_client must never block in accept
  }
  ~ListeningSocketTransport() override {
    end_session();
    listen_fd_.reset();
    if (!path_.empty()) ::unlink(path_.c_str());
  }

  Result<void> wait_for_host() override {
    end_session();
    for (;;) {
      pollfd p{listen_fd_.get(), POLLIN, 0};
      if (::poll(&p, 1, -1) < 0 && errno != EINTR)
        return make_error(ErrorKind::io, "poll: " + errno_text());
      int fd = ::accept4(listen_fd_.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
      if (fd >= 0) {
        client_.reset(fd);
        return {};
      }
      if (errno == EINTR || errno == ECONNABORTED || errno == EAGAIN || errno == EWOULDBLOCK)
        continue;
      return make_error(ErrorKind::io, "accept on " + what_ + ": " + errno_text());
    }
  }

  Result<ReadStatus> read_some(std::string& out, int timeout_ms) override {
    if (!client_) return ReadStatus::kHangup;
    // The listening socket is watched too: a second client is refused at once, not left
    // waiting in the backlog for as long as the first one stays.
    pollfd p[2] = {{client_.get(), POLLIN | POLLRDHUP, 0}, {listen_fd_.get(), POLLIN, 0}};
    int rc = ::poll(p, 2, timeout_ms);
    if (rc < 0) {
      if (errno == EINTR) return ReadStatus::kTimeout;
      return make_error(ErrorKind::io, "poll: " + errno_text());
    }
    if (rc == 0) return ReadStatus::kTimeout;
    // The current host first: when it has just closed and reconnected, the new connection is
    // the next session, not a second client to refuse. A host that is still there is no reason
    // to leave the other waiting: one that keeps writing always has POLLIN, and starved the
    // listener for as long as it wrote.
    const bool host_left = p[0].revents & (POLLHUP | POLLRDHUP | POLLERR);
    if (refuse_second_client(p[1].revents & POLLIN, host_left))
      refuse_waiting_client(listen_fd_.get());
    if (!(p[0].revents & (POLLIN | POLLHUP | POLLERR))) return ReadStatus::kTimeout;
    char buf[65536];
    ssize_t n = ::read(client_.get(), buf, sizeof(buf));
    if (n > 0) {
      out.append(buf, static_cast<std::size_t>(n));
      return ReadStatus::kData;
    }
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return ReadStatus::kTimeout;
    return ReadStatus::kHangup;
  }

  Result<void> write_all(std::string_view bytes, int timeout_ms) override {
    if (!client_) return make_error(ErrorKind::io, "no host connected");
    return write_fd(client_.get(), bytes, true, timeout_ms,
                    WaitingClients{listen_fd_.get(), &refuse_waiting_client});
  }

  void end_session() override { client_.reset(); }
  std::string describe() const override { return what_; }

 private:
  // One error line, best effort (the socket buffer of a fresh connection always has room), then
  // close: the agent runs one benchmark at a time, so a second host could not be served anyway.
  static void refuse_waiting_client(int listen_fd) {
    OwnedFd fd(::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK));
    if (!fd) return;
    const std::string& line = busy_reply_line();
    (void)::send(fd.get(), line.data(), line.size(), MSG_NOSIGNAL);
  }

  OwnedFd listen_fd_;
  OwnedFd client_;
  fs::path path_;
  std::string what_;
};

}  // namespace

Result<fs::path> find_virtio_port(const std::string& name, const fs::path& sys_root,
                                  const fs::path& dev_root) {
  std::error_code ec;
  const fs::path ports = sys_root / "class/virtio-ports";
  for (const auto& e : fs::directory_iterator(ports, ec)) {
    auto port_name = read_attribute(e.path() / "name");
    if (port_name && *port_name == name) return dev_root / e.path().filename();
  }
  const fs::path by_name = dev_root / "virtio-ports" / name;
  if (fs::exists(by_name, ec)) return by_name;
  return make_error(ErrorKind::not_found, "no virtio-serial port named '" + name + "' in " +
                                              ports.string() + " or " +
                                              (dev_root / "virtio-ports").string());
}

Result<std::unique_ptr<Transport>> open_virtio_port(const fs::path& device) {
  Backoff backoff;
  for (;;) {
    OwnedFd fd(::open(device.c_str(), O_RDWR | O_CLOEXEC | O_NOCTTY));
    if (fd) return std::unique_ptr<Transport>(new VirtioPortTransport(std::move(fd), device));
    if (errno != EBUSY)
      return make_error(ErrorKind::io, "open " + device.string() + ": " + errno_text());
    backoff.sleep();  // only one opener at a time: wait for the other one to let go
  }
}

Result<std::unique_ptr<Transport>> open_virtio_port_by_name(const std::string& name) {
  Backoff backoff;
  bool reported = false;
  for (;;) {
    auto path = find_virtio_port(name);
    if (path) {
      // devtmpfs creates the node asynchronously after the port appears in sysfs.
      std::error_code ec;
      if (fs::exists(*path, ec)) return open_virtio_port(*path);
    } else if (!reported) {
      std::cerr << "topolab-agent: " << path.error().message << "; waiting for it\n";
      reported = true;
    }
    backoff.sleep();
  }
}

Result<std::unique_ptr<Transport>> listen_unix(const fs::path& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string p = path.string();
  TL_TRY(copy_socket_path(addr.sun_path, sizeof(addr.sun_path), p));
  struct stat st {};
  if (::lstat(p.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode))
      return make_error(ErrorKind::input, p + " exists and is not a socket; not replacing it");
    ::unlink(p.c_str());
  }
  OwnedFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd) return make_error(ErrorKind::io, "socket: " + errno_text());
  const mode_t old_mask = ::umask(0077);  // the socket is created 0600
  int rc = ::bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  const int bind_errno = errno;
  ::umask(old_mask);
  if (rc != 0) return make_error(ErrorKind::io, "bind " + p + ": " + std::strerror(bind_errno));
  ::chmod(p.c_str(), 0600);
  if (::listen(fd.get(), 4) != 0)
    return make_error(ErrorKind::io, "listen " + p + ": " + errno_text());
  return std::unique_ptr<Transport>(
      new ListeningSocketTransport(std::move(fd), path, "UNIX socket " + p));
}

Result<std::unique_ptr<Transport>> listen_tcp_loopback(std::uint16_t port) {
  const std::string what = "TCP 127.0.0.1:" + std::to_string(port);
  OwnedFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd) return make_error(ErrorKind::io, "socket: " + errno_text());
  int one = 1;
  ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      ::listen(fd.get(), 4) != 0)
    return make_error(ErrorKind::io, "listen on " + what + ": " + errno_text());
  return std::unique_ptr<Transport>(new ListeningSocketTransport(std::move(fd), {}, what));
}

}  // namespace topolab::agent
