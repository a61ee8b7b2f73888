// The OS services behind platform.hpp that the benchmarks' budgets rest on: MemAvailable, and
// children that are silent (output on the null device) and killed on their timeout.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>

#include "guest-agent/platform.hpp"

namespace topolab::agent {
namespace {

using namespace std::chrono_literals;

TEST(PlatformLinux, MemAvailableMatchesProcMeminfo) {
  std::ifstream in("/proc/meminfo");
  std::string line;
  long long kib = -1;
  while (std::getline(in, line)) {
    if (line.rfind("MemAvailable:", 0) == 0) kib = std::stoll(line.substr(13));
  }
  ASSERT_GT(kib, 0);
  auto avail = mem_available_bytes();
  ASSERT_TRUE(avail) << avail.error().message;
  const double expected = static_cast<double>(kib) * 1024.0;
  // Read a moment apart on a shared machine: within 10%.
  EXPECT_NEAR(static_cast<double>(*avail), expected, expected * 0.1);
}

// Runs `body` with this process's stdout and stderr redirected to a file; returns the file.
template <typename Body>
std::string with_output_captured(Body body) {
  char path[] = "/tmp/topolab-platform-test-XXXXXX";
  int file = ::mkstemp(path);
  EXPECT_GE(file, 0);
  std::fflush(stdout);
  std::fflush(stderr);
  int saved_out = ::dup(1), saved_err = ::dup(2);
  ::dup2(file, 1);
  ::dup2(file, 2);
  body();
  std::fflush(stdout);
  std::fflush(stderr);
  ::dup2(saved_out, 1);
  ::dup2(saved_err, 2);
  ::close(saved_out);
  ::close(saved_err);
  ::close(file);
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ::unlink(path);
  return text;
}

TEST(PlatformLinux, SpawnedChildrenWriteNothingToTheAgentsOutput) {
  Result<void> ran;
  std::string seen = with_output_captured([&] {
    ran = spawn_and_wait({"/bin/sh", {"-c", "echo LEAKED-OUT; echo LEAKED-ERR >&2; cat"}, 5000ms});
  });
  EXPECT_TRUE(ran) << ran.error().message;  // cat read EOF from the null device at once
  EXPECT_EQ(seen.find("LEAKED"), std::string::npos) << seen;
}

TEST(PlatformLinux, AChildPastItsTimeoutIsKilled) {
  const auto start = std::chrono::steady_clock::now();
  auto r = spawn_and_wait({"/bin/sleep", {"30"}, 300ms});
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("did not exit within 300 ms; killed"), std::string::npos)
      << r.error().message;
  EXPECT_LT(took, 3s);
}

TEST(PlatformLinux, FailuresAreReported) {
  auto failed = spawn_and_wait({"/bin/false", {}, 5000ms});
  ASSERT_FALSE(failed);
  EXPECT_NE(failed.error().message.find("exited with status 1"), std::string::npos)
      << failed.error().message;
  auto missing = spawn_and_wait({"/nonexistent/program", {}, 5000ms});
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("exec failed"), std::string::npos)
      << missing.error().message;
}

}  // namespace
}  // namespace topolab::agent
