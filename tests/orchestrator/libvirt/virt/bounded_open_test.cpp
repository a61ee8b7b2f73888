// virConnectOpen with a deadline (virt/bounded_open.hpp): a peer that accepts TCP and never
// answers (a socket that listens and never accepts: the kernel completes the handshake, nobody
// speaks) blocks libvirt's open forever; bounded, it is one error naming the URI. A refused
// port keeps libvirt's own reason, and a working driver (test:///default) opens as before.
#include "orchestrator/libvirt/virt/bounded_open.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

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
  // Accepts what is waiting and hangs up on it: the peer sees the connection closed.
  void hang_up_on_one() {
    const int c = accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (c >= 0) close(c);
  }

 private:
  int fd_ = -1;
  int port_ = 0;
};

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Hangs up on the abandoned open and waits (bounded) until it has returned: its thread's
// allocations (libvirt's, libcrypto's) are not leaks of the test process at exit.
void wait_for_abandoned_open(LoopbackPort& silent) {
  silent.hang_up_on_one();
  for (int i = 0; i < 200; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    auto again = open_bounded(silent.uri(), std::chrono::milliseconds(1));
    if (again.ok() || again.error().message.find("still unanswered") == std::string::npos) {
      silent.hang_up_on_one();  // that 1 ms open's own connection
      break;
    }
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // its thread's exit
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
  wait_for_abandoned_open(silent);
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

// While an abandoned open of a target still waits, the next open of it in this process fails at
// once (boot's vCPU-limit query and its session each waited the whole bound); once the
// abandoned open returns (here: the peer hangs up), a new open tries again.
TEST(BoundedOpen, ASecondOpenWhileTheFirstIsUnansweredFailsAtOnce) {
  LoopbackPort silent;
  ASSERT_GT(silent.port(), 0);
  ASSERT_FALSE(open_bounded(silent.uri(), 500ms).ok());
  auto t0 = Clock::now();
  auto again = open_bounded(silent.uri(), 5000ms);
  ASSERT_FALSE(again.ok());
  EXPECT_LT(seconds_since(t0), 1.0);
  EXPECT_NE(again.error().message.find("still unanswered"), std::string::npos)
      << again.error().message;
  silent.hang_up_on_one();  // the abandoned open sees the connection closed and returns
  std::string last;
  for (int i = 0; i < 200; ++i) {  // up to 20 s for its thread to run on a loaded machine
    std::this_thread::sleep_for(100ms);
    auto third = open_bounded(silent.uri(), 300ms);
    ASSERT_FALSE(third.ok());
    last = third.error().message;
    if (last.find("still unanswered") == std::string::npos) break;
  }
  EXPECT_EQ(last.find("still unanswered"), std::string::npos) << last;
  EXPECT_NE(last.find("no answer within 300 ms"), std::string::npos) << last;
}

}  // namespace
}  // namespace topolab::virt
