// Every command that connects (host -c, doctor -c, boot -c, run --connect) goes through the one
// bounded open (virt/bounded_open.hpp): a host that accepts TCP and never answers fails within
// kConnectBound in one line naming the URI, instead of hanging forever in virConnectOpen. The
// silent host is a loopback socket that listens and never accepts (the kernel completes the
// handshake; nobody speaks): deterministic, no network needed. The four commands run at once,
// so the test waits the bound once.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "common/exit_code.hpp"
#include "orchestrator/libvirt/virt/bounded_open.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/temp_dir.hpp"

namespace topolab {
namespace {

using Clock = std::chrono::steady_clock;

int silent_listener(int* port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || listen(fd, 16) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    close(fd);
    return -1;
  }
  *port = ntohs(a.sin_port);
  return fd;
}

TEST(ConnectBound, EveryCommandFailsASilentHostWithinTheBoundInOneLine) {
  int port = 0;
  const int fd = silent_listener(&port);
  ASSERT_GE(fd, 0);
  const std::string uri = "qemu+tcp://127.0.0.1:" + std::to_string(port) + "/system";
  testing::TempDir tmp("topolab-connect-bound");
  const std::string db = (tmp.path() / "r.db").string();
  const std::string experiment =
      std::string(TOPOLAB_TESTS_DIR) + "/integration/experiment/data/two-exposures.toml";
  const std::vector<std::vector<std::string>> commands = {
      {"host", "-c", uri},
      {"doctor", "-c", uri},
      {"boot", "ryzen-1700x", "-c", uri, "--accel", "tcg", "--run-id", "connect-bound"},
      // The silent host second: the first is prepared, then the run is refused as a whole.
      {"run", experiment, "--connect", "qemu:///system", "--connect", uri, "--store", db, "-q"}};
  const auto t0 = Clock::now();
  std::vector<std::unique_ptr<testing::CliChild>> children;
  for (const auto& args : commands) children.push_back(std::make_unique<testing::CliChild>(args));
  const auto budget = virt::kConnectBound + std::chrono::seconds(60);  // a loaded machine
  for (std::size_t i = 0; i < commands.size(); ++i) {
    auto r = children[i]->wait(budget);
    const std::string what = commands[i][0];
    EXPECT_FALSE(r.timed_out) << what << ": still connecting after " << budget.count() << " s";
    // doctor's code says "a check failed" (1); the others carry the libvirt error's (69).
    EXPECT_EQ(r.status(), to_int(what == "doctor" ? ExitCode::failed : ExitCode::unavailable))
        << what << ": " << r.err;
    EXPECT_NE((r.err + r.out)
                  .find("cannot connect to " + uri + ": no answer within " +
                        std::to_string(virt::kConnectBound.count()) + " s"),
              std::string::npos)
        << what << ": " << r.err;
    // doctor is a checklist (one line per check on stdout); the others say it in one line.
    const std::string& text = what == "doctor" ? r.out : r.err;
    if (what == "doctor") {
      EXPECT_NE(text.find("fail  libvirt    cannot connect to " + uri + ": no answer within "),
                std::string::npos)
          << text;
      EXPECT_NE(text.find("hugepages  remote (the libvirt check could not connect)"),
                std::string::npos)
          << "the silent host is asked once\n"
          << text;
    } else {
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << what << ": " << r.err;
    }
  }
  const auto took = std::chrono::duration_cast<std::chrono::seconds>(Clock::now() - t0);
  EXPECT_GE(took, virt::kConnectBound - std::chrono::seconds(1));
  // Each command waits the bound once (doctor too): all four ran at once.
  EXPECT_LT(took, 2 * virt::kConnectBound + std::chrono::seconds(40));
  close(fd);
  // Nothing half-done on the host that answered: the refused run left no store (it created
  // one, then removed it: nothing had booted), no domain defined.
  EXPECT_FALSE(std::filesystem::exists(db)) << "a refused run left its new store";
  EXPECT_EQ(testing::topolab_domains_with("connect-bound"), std::vector<std::string>{});
}

}  // namespace
}  // namespace topolab
