// Loopback TCP transport on Linux: the same `--tcp PORT` the Windows agent offers, so one test
// can drive both agents through AgentClient::connect_tcp_loopback.
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "guest-agent/transport.hpp"

namespace topolab::agent {
namespace {

std::string errno_text() { return std::strerror(errno); }

class TcpTransport : public Transport {
 public:
  TcpTransport(int listen_fd, std::uint16_t port) : listen_fd_(listen_fd), port_(port) {}
  ~TcpTransport() override {
    end_session();
    ::close(listen_fd_);
  }

  Result<void> wait_for_host() override {
    end_session();
    for (;;) {
      int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd >= 0) {
        client_ = fd;
        return {};
      }
      if (errno == EINTR || errno == ECONNABORTED) continue;
      return make_error("accept on " + describe() + ": " + errno_text());
    }
  }

  Result<ReadStatus> read_some(std::string& out, int timeout_ms) override {
    if (client_ < 0) return ReadStatus::kHangup;
    pollfd p{client_, POLLIN, 0};
    int rc = ::poll(&p, 1, timeout_ms);
    if (rc < 0) {
      if (errno == EINTR) return ReadStatus::kTimeout;
      return make_error("poll: " + errno_text());
    }
    if (rc == 0) return ReadStatus::kTimeout;
    char buf[65536];
    ssize_t n = ::recv(client_, buf, sizeof(buf), 0);
    if (n > 0) {
      out.append(buf, static_cast<std::size_t>(n));
      return ReadStatus::kData;
    }
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return ReadStatus::kTimeout;
    return ReadStatus::kHangup;
  }

  Result<void> write_all(std::string_view bytes) override {
    if (client_ < 0) return make_error("no host connected");
    std::size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = ::send(client_, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return make_error("send: " + errno_text());
      done += static_cast<std::size_t>(n);
    }
    return {};
  }

  void end_session() override {
    if (client_ >= 0) ::close(client_);
    client_ = -1;
  }
  std::string describe() const override { return "TCP 127.0.0.1:" + std::to_string(port_); }

 private:
  int listen_fd_;
  int client_ = -1;
  std::uint16_t port_;
};

}  // namespace

Result<std::unique_ptr<Transport>> listen_tcp_loopback(std::uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return make_error("socket: " + errno_text());
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 || ::listen(fd, 4) != 0) {
    std::string err = errno_text();
    ::close(fd);
    return make_error("listen on 127.0.0.1:" + std::to_string(port) + ": " + err);
  }
  return std::unique_ptr<Transport>(new TcpTransport(fd, port));
}

}  // namespace topolab::agent
