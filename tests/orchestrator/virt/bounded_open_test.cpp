// virConnectOpen with a deadline (virt/bounded_open.hpp): a peer that accepts TCP and never
// answers (a socket that listens and never accepts: the kernel completes the handshake, nobody
// speaks) blocks libvirt's open forever; bounded, it is one error naming the URI. A refused
// port keeps libvirt's own reason, and a working driver (test:///default) opens as before.
#include "orchestrator/virt/bounded_open.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>

namespace topolab::virt {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

// A loopback port: listening (connections complete, nothing is ever said) or, after close(),
// most likely refused.
class LoopbackPort {
 public:
  LoopbackPort() {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 && listen(fd_, 8) == 0 &&
        getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) == 0)
      port_ = ntohs(a.sin_port);
  }
  ~LoopbackPort() { close_now(); }
  void close_now() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }
  std::string uri() const { return "qemu+tcp://127.0.0.1:" + std::to_string(port_) + "/system"; }
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

TEST(BoundedOpen, APeerThatNeverAnswersFailsAtTheBoundNamingTheUri) {
  LoopbackPort silent;
  ASSERT_GT(silent.port(), 0);
  const auto t0 = Clock::now();
  auto conn = open_bounded(silent.uri(), 1500ms);
  const double took = seconds_since(t0);
  ASSERT_FALSE(conn.ok());
  EXPECT_EQ(conn.error().message.rfind(
                "cannot connect to " + silent.uri() + ": no answer within 1500 ms", 0),
            0u)
      << conn.error().message;
  EXPECT_EQ(conn.error().message.find('\n'), std::string::npos);
  EXPECT_GE(took, 1.4);
  EXPECT_LT(took, 30.0);  // unbounded, libvirt waits forever
}

TEST(BoundedOpen, ARefusedPortKeepsLibvirtsReasonAndFailsAtOnce) {
  LoopbackPort gone;
  ASSERT_GT(gone.port(), 0);
  gone.close_now();
  const auto t0 = Clock::now();
  auto conn = open_bounded(gone.uri(), kConnectBound);
  ASSERT_FALSE(conn.ok());
  EXPECT_LT(seconds_since(t0), 15.0);
  EXPECT_EQ(conn.error().message.rfind("cannot connect to " + gone.uri() + ": ", 0), 0u)
      << conn.error().message;
  EXPECT_EQ(conn.error().message.find("no answer within"), std::string::npos)
      << conn.error().message;
  EXPECT_NE(conn.error().message.find("onnection refused"), std::string::npos)
      << conn.error().message;
}

TEST(BoundedOpen, AWorkingDriverOpensAsBefore) {
  auto conn = open_bounded("test:///default", kConnectBound);
  ASSERT_TRUE(conn.ok()) << conn.error().message;
  LibvirtString uri(virConnectGetURI(conn->get()));
  ASSERT_TRUE(uri);
  EXPECT_EQ(std::string(uri.get()), "test:///default");
}

}  // namespace
}  // namespace topolab::virt
