// Issue 12 class 10: when libvirt refuses to start a guest, `topolab boot` must print libvirt's
// own reason (it used to print "unknown libvirt error": the domain's name was read with another
// libvirt call, which resets the thread's error, before the error was read). Both cases fail in
// libvirt/QEMU within seconds of virDomainCreate; no guest runs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "tests/support/child_process.hpp"

namespace topolab::testing {
namespace {

class StartFailure : public ::testing::Test {
 protected:
  CliRun boot(const std::string& what, const std::string& set) {
    marker_ = "it" + std::to_string(getpid()) + "-" + what;
    return run_cli({"boot", "ryzen-1700x", "--policy", "unpinned", "--accel", "tcg", "--run-id",
                    marker_, "--set", set},
                   std::chrono::minutes(5));
  }
  void TearDown() override {
    EXPECT_EQ(topolab_domains_with(marker_), std::vector<std::string>{})
        << "a topolab- domain of this test is left behind";
  }
  std::string marker_;
};

void expect_reason(const CliRun& r, const std::string& reason) {
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 69) << "libvirt's refusal: ExitCode::unavailable\n" << r.err;
  EXPECT_NE(r.err.find("virDomainCreate(topolab-ryzen-1700x-"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(reason), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("unknown libvirt error"), std::string::npos) << r.err;
}

TEST_F(StartFailure, UnknownCpuModelNamesTheModel) {
  expect_reason(boot("badcpu", "cpu.model=TopolabNoSuchCpu"), "Unknown CPU model TopolabNoSuchCpu");
}

bool hugepages_configured() {
  std::ifstream in("/proc/meminfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("HugePages_Total:", 0) == 0) return std::stol(line.substr(16)) > 0;
  }
  return false;
}

TEST_F(StartFailure, HugepagesWithNoneConfiguredSaysSo) {
  marker_ = "unused";
  if (hugepages_configured()) GTEST_SKIP() << "this host has hugepages; libvirt would start it";
  expect_reason(boot("huge", "memory.hugepages=2M"), "hugetlbfs");
}

}  // namespace
}  // namespace topolab::testing
