#pragma once
// Runs the built topolab-agent.exe under Debian's wine for the Windows agent tests: a private
// WINEPREFIX under the build tree (booted once with `wineboot -i`, then reused), WINEDEBUG=-all,
// every wine call bounded, and `wineserver -k` when the test process ends (a gtest Environment),
// so no wine process outlives the test. ctest runs these tests one at a time (RESOURCE_LOCK
// wine in tests/CMakeLists.txt): one test's wineserver -k must not kill another's agent.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "protocol/protocol.hpp"
#include "tests/support/child_process.hpp"

namespace topolab::testing {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// The .exe is built beside topolab-agent (guest-agent/CMakeLists.txt).
inline fs::path windows_agent_exe() { return fs::path(TOPOLAB_AGENT).string() + ".exe"; }
inline fs::path build_dir() { return fs::path(TOPOLAB_AGENT).parent_path().parent_path(); }
inline fs::path wine_prefix() { return build_dir() / "wine" / "prefix"; }

inline std::optional<fs::path> find_program(const std::string& name) {
  const char* path = ::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    std::size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    fs::path candidate = fs::path(dirs.substr(start, end - start)) / name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return std::nullopt;
}

// Why the wine tests cannot run here, or "" when they can.
inline std::string wine_missing() {
  if (!fs::exists(windows_agent_exe()))
    return windows_agent_exe().string() +
           " was not built (x86_64-w64-mingw32-g++-posix missing: run scripts/setup.sh)";
  for (const char* p : {"wine", "wineserver", "wineboot", "timeout"}) {
    if (!find_program(p)) return std::string(p) + " not in PATH (run scripts/setup.sh)";
  }
  return "";
}

// Sets the wine environment of this process (inherited by every child) and boots the prefix
// the first time. Returns "" or what went wrong.
inline std::string prepare_wine() {
  ::setenv("WINEPREFIX", wine_prefix().c_str(), 1);
  ::setenv("WINEDEBUG", "-all", 1);
  // No Mono/Gecko installer dialogs: the agent needs neither.
  ::setenv("WINEDLLOVERRIDES", "mscoree,mshtml=", 1);
  ::unsetenv("DISPLAY");
  if (fs::exists(wine_prefix() / "system.reg")) return "";
  fs::create_directories(wine_prefix().parent_path());
  ChildOptions o;
  o.search_path = true;
  o.null_stdin = true;
  auto run = run_process({"timeout", "300", "wineboot", "-i"}, o, 320s);
  // wineboot returns before wineserver has saved the registry (system.reg is written when the
  // server exits): wait for it, or a fresh prefix looks unbooted (seen on a clean build).
  if (run.status() == 0) run_process({"timeout", "60", "wineserver", "-w"}, o, 70s);
  if (run.status() != 0 || !fs::exists(wine_prefix() / "system.reg"))
    return "wineboot -i failed (" + std::to_string(run.status()) + "): " + run.err;
  return "";
}

// `wine topolab-agent.exe ARGS...`, bounded by timeout(1) as well as by the child's wait.
inline CliRun run_wine_agent(const std::vector<std::string>& args,
                             std::chrono::seconds timeout = 120s) {
  std::vector<std::string> argv = {"timeout", std::to_string(timeout.count()), "wine",
                                   windows_agent_exe().string()};
  argv.insert(argv.end(), args.begin(), args.end());
  ChildOptions o;
  o.search_path = true;
  o.null_stdin = true;
  return run_process(argv, o, timeout + 10s);
}

// Kills the prefix's wineserver (and with it every wine process of the prefix) at the end.
class WineEnvironment : public ::testing::Environment {
 public:
  void TearDown() override {
    if (!find_program("wineserver") || !fs::exists(wine_prefix())) return;
    ChildOptions o;
    o.search_path = true;
    o.null_stdin = true;
    run_process({"timeout", "30", "wineserver", "-k"}, o, 40s);
  }
};

// A loopback port that was free a moment ago (the agent binds it next).
inline std::uint16_t free_tcp_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(a);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

// `wine topolab-agent.exe serve --tcp PORT [extra]`, killed on destruction.
class WineAgent {
 public:
  explicit WineAgent(std::vector<std::string> extra = {}) : port_(free_tcp_port()) {
    std::vector<std::string> argv = {"timeout",
                                     "600",
                                     "wine",
                                     windows_agent_exe().string(),
                                     "serve",
                                     "--tcp",
                                     std::to_string(port_)};
    argv.insert(argv.end(), extra.begin(), extra.end());
    ChildOptions o;
    o.search_path = true;
    o.null_stdin = true;
    o.capture_output = false;
    // Not the test's own stdout: when wineserver dies (it once hit an assertion in sock.c), the
    // killed `timeout` leaves a wine process that held ctest's pipe open until ctest's 600 s.
    o.output_file = wine_prefix().parent_path() / "agent-serve.log";
    child_.emplace(std::move(argv), o);
  }
  std::uint16_t port() const { return port_; }
  // Exit status within timeout, or -1 if still running.
  int wait_exit(std::chrono::milliseconds timeout) {
    auto run = child_->try_wait(timeout);
    return run ? run->status() : -1;
  }

 private:
  std::uint16_t port_;
  std::optional<ChildProcess> child_;
};

// A raw TCP connection for what AgentClient never sends (junk, huge lines) and for reading the
// agent's messages as they are.
class RawTcp {
 public:
  explicit RawTcp(std::uint16_t port) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    for (int i = 0; i < 400; ++i) {  // wine starts the agent in about a second
      fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
      if (::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0) return;
      ::close(fd_);
      fd_ = -1;
      std::this_thread::sleep_for(50ms);
    }
    ADD_FAILURE() << "cannot connect to 127.0.0.1:" << port;
  }
  ~RawTcp() {
    if (fd_ >= 0) ::close(fd_);
  }
  bool connected() const { return fd_ >= 0; }
  int fd() const { return fd_; }
  void send(const std::string& bytes) {
    std::size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = ::send(fd_, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
      ASSERT_GT(n, 0);
      done += static_cast<std::size_t>(n);
    }
  }
  // The next decoded message within `timeout`, or null.
  nlohmann::json next(std::chrono::milliseconds timeout = 20s) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      if (auto e = reader_.next()) {
        if (e->kind != protocol::LineReader::Kind::kLine) continue;
        auto m = protocol::decode(e->line);
        EXPECT_TRUE(m.ok()) << e->line;
        return m.ok() ? m->body : nlohmann::json();
      }
      if (std::chrono::steady_clock::now() > deadline) return nlohmann::json();
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      char buf[65536];
      ssize_t n = ::read(fd_, buf, sizeof(buf));
      if (n <= 0) return nlohmann::json();
      reader_.feed(std::string_view(buf, static_cast<std::size_t>(n)));
    }
  }
  nlohmann::json next_of_type(const std::string& type) {
    for (int i = 0; i < 10; ++i) {
      auto m = next();
      if (m.is_null() || m.value("type", "") == type) return m;
    }
    return nlohmann::json();
  }

 private:
  int fd_ = -1;
  protocol::LineReader reader_;
};

// Skips the test with the reason when wine or the .exe is missing; prepares the prefix.
#define TOPOLAB_REQUIRE_WINE()                                                          \
  do {                                                                                  \
    std::string missing_ = ::topolab::testing::wine_missing();                          \
    if (!missing_.empty()) GTEST_SKIP() << "Windows agent tests skipped: " << missing_; \
    std::string boot_ = ::topolab::testing::prepare_wine();                             \
    ASSERT_EQ(boot_, "");                                                               \
  } while (0)

}  // namespace topolab::testing
