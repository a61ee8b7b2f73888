#pragma once
// A TCP forwarder between topolab and libvirtd's listener (127.0.0.1:16509): the "network"
// of the remote-connection fault tests. It reads libvirt's RPC framing on the client -> server
// direction (4-byte length, then program, version, procedure, type, serial, status, all
// big-endian) so a test can drop the connection at an exact point of the protocol:
//   Cut:    both sockets of that connection are closed (the peer hung up, a reset)
//   Freeze: nothing more is forwarded, the sockets stay open (a host that stops answering;
//           only libvirt's keepalive notices)
// The message that triggers it is not forwarded. It triggers once; later connections (the
// cleanup's reconnect) are forwarded untouched, or refused with `refuse_after` (the host is
// gone for good). `listen_port` (0: any free port) lets a test bring a host back on the URI it
// had: a second forwarder on the first one's port once that one refuses.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace topolab::testing {

struct RpcHeader {
  std::uint32_t program = 0, version = 0, procedure = 0, type = 0;
};
// virNetMessageType
inline constexpr std::uint32_t kRpcCall = 0, kRpcStream = 3;
inline constexpr std::uint32_t kRemoteProgram = 0x20008086;

class TcpForwarder {
 public:
  enum class Fault { kCut, kFreeze };
  using Trigger = std::function<bool(const RpcHeader&)>;

  TcpForwarder(int target_port, Fault fault, Trigger trigger, bool refuse_after = false,
               int listen_port = 0)
      : target_port_(target_port),
        fault_(fault),
        trigger_(std::move(trigger)),
        refuse_after_(refuse_after) {
    listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const int one = 1;  // the port's earlier connections may still be in TIME_WAIT
    setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in a = loopback(listen_port);
    socklen_t len = sizeof a;
    if (bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
        listen(listen_fd_, 16) != 0 ||
        getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
      close(listen_fd_);
      listen_fd_ = -1;
      return;
    }
    port_ = ntohs(a.sin_port);
    acceptor_ = std::thread([this] { accept_loop(); });
  }
  ~TcpForwarder() {
    stop_ = true;
    if (acceptor_.joinable()) acceptor_.join();
    std::lock_guard lock(mu_);
    for (auto& t : pumps_) t.join();
    if (listen_fd_ >= 0) close(listen_fd_);
  }
  TcpForwarder(const TcpForwarder&) = delete;
  TcpForwarder& operator=(const TcpForwarder&) = delete;

  int port() const { return port_; }
  bool triggered() const { return triggered_; }
  int connections() const { return connections_; }

 private:
  static sockaddr_in loopback(int port) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return a;
  }

  void accept_loop() {
    while (!stop_) {
      if (refuse_after_ && triggered_) {  // connection refused from now on
        close(listen_fd_);
        listen_fd_ = -1;
        return;
      }
      pollfd p{listen_fd_, POLLIN, 0};
      if (poll(&p, 1, 100) <= 0) continue;
      int client = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (client < 0) continue;
      if (refuse_after_ && triggered_) {  // arrived after the fault: the host is gone
        close(client);
        continue;  // the check above closes the listener
      }
      int server = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      sockaddr_in a = loopback(target_port_);
      if (connect(server, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        close(client);
        close(server);
        continue;
      }
      ++connections_;
      std::lock_guard lock(mu_);
      pumps_.emplace_back([this, client, server] { pump(client, server); });
    }
  }

  static std::uint32_t be32(const std::string& b, std::size_t off) {
    std::uint32_t v;
    std::memcpy(&v, b.data() + off, 4);
    return ntohl(v);
  }

  static bool send_all(int fd, const char* p, std::size_t n) {
    while (n > 0) {
      ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
      if (w <= 0) return false;
      p += w;
      n -= static_cast<std::size_t>(w);
    }
    return true;
  }

  // Forwards whole client messages (so the trigger sees each header), server bytes as they
  // come. Returns when either side closes, the fault cut, or the forwarder stops.
  void pump(int client, int server) {
    std::string pending;  // client bytes not yet forwarded (an incomplete message)
    bool frozen = false;
    char buf[65536];
    while (!stop_) {
      pollfd p[2] = {{client, static_cast<short>(frozen ? 0 : POLLIN), 0},
                     {server, static_cast<short>(frozen ? 0 : POLLIN), 0}};
      if (poll(p, 2, 100) <= 0) continue;
      if (p[1].revents & (POLLIN | POLLHUP | POLLERR)) {
        ssize_t n = recv(server, buf, sizeof buf, 0);
        if (n <= 0 || !send_all(client, buf, static_cast<std::size_t>(n))) break;
      }
      if (!(p[0].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = recv(client, buf, sizeof buf, 0);
      if (n <= 0) break;
      pending.append(buf, static_cast<std::size_t>(n));
      bool cut = false;
      while (pending.size() >= 28) {
        std::uint32_t len = be32(pending, 0);
        if (len < 28 || pending.size() < len) break;
        RpcHeader h{be32(pending, 4), be32(pending, 8), be32(pending, 12), be32(pending, 16)};
        bool expected = false;
        if (trigger_(h) && triggered_.compare_exchange_strong(expected, true)) {
          if (fault_ == Fault::kCut) cut = true;
          frozen = true;
          break;
        }
        if (!send_all(server, pending.data(), len)) {
          cut = true;
          break;
        }
        pending.erase(0, len);
      }
      if (cut) break;
    }
    // A frozen connection keeps its sockets until the forwarder stops (the client's keepalive
    // gives up first); a cut one is closed now.
    while (frozen && fault_ == Fault::kFreeze && !stop_) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    shutdown(client, SHUT_RDWR);
    shutdown(server, SHUT_RDWR);
    close(client);
    close(server);
  }

  int target_port_;
  Fault fault_;
  Trigger trigger_;
  bool refuse_after_ = false;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false}, triggered_{false};
  std::atomic<int> connections_{0};
  std::mutex mu_;
  std::thread acceptor_;
  std::vector<std::thread> pumps_;
};

}  // namespace topolab::testing
