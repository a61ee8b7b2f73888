// The built-in image's agent takes its test-only faults from the kernel command line.
#include <gtest/gtest.h>

#include "guest-agent/agent.hpp"

namespace topolab::agent {
namespace {

TEST(CmdlineFaults, NoneByDefault) {
  AgentOptions o;
  EXPECT_EQ(apply_cmdline_faults("console=ttyS0 quiet topolab.x=1", o), "");
  EXPECT_EQ(o.hang_after, -1);
  EXPECT_FALSE(o.garbage);
}

TEST(CmdlineFaults, HangAfterAndGarbage) {
  AgentOptions o;
  EXPECT_EQ(apply_cmdline_faults("console=ttyS0 topolab.fault=hang-after:3\n", o), "");
  EXPECT_EQ(o.hang_after, 3);
  EXPECT_FALSE(o.garbage);
  AgentOptions g;
  EXPECT_EQ(apply_cmdline_faults("topolab.fault=garbage quiet", g), "");
  EXPECT_TRUE(g.garbage);
  EXPECT_EQ(g.hang_after, -1);
  AgentOptions n;
  EXPECT_EQ(apply_cmdline_faults("topolab.fault=none", n), "");
  EXPECT_EQ(n.hang_after, -1);
  EXPECT_FALSE(n.garbage);
}

// The boot watchdog's test fault: the agent (PID 1) never serves, so no hello ever comes.
TEST(CmdlineFaults, HangBootIsOnlyThatFault) {
  AgentOptions o;
  EXPECT_EQ(apply_cmdline_faults("console=ttyS0 topolab.fault=hang-boot panic=-1", o), "");
  EXPECT_TRUE(o.hang_boot);
  EXPECT_EQ(o.hang_after, -1);
  EXPECT_FALSE(o.garbage);
  EXPECT_TRUE(o.hangs_at_boot());
  AgentOptions first;
  EXPECT_EQ(apply_cmdline_faults("topolab.fault=hang-boot-first", first), "");
  EXPECT_TRUE(first.hangs_at_boot());
  AgentOptions retried;
  EXPECT_EQ(apply_cmdline_faults("topolab.fault=hang-boot-first topolab.boot_attempt=2", retried),
            "");
  EXPECT_EQ(retried.boot_attempt, 2);
  EXPECT_FALSE(retried.hangs_at_boot());
  AgentOptions bad;
  EXPECT_NE(apply_cmdline_faults("topolab.boot_attempt=10", bad), "");
  EXPECT_NE(apply_cmdline_faults("topolab.boot_attempt=0", bad), "");
  EXPECT_EQ(bad.boot_attempt, 1);
  AgentOptions prefix;
  EXPECT_NE(apply_cmdline_faults("topolab.fault=hang-bootx", prefix), "");
  EXPECT_FALSE(prefix.hang_boot);
}

TEST(CmdlineFaults, StallBootIsOnlyThatFault) {
  AgentOptions o;
  EXPECT_EQ(apply_cmdline_faults("console=ttyS0 topolab.fault=stall-boot", o), "");
  EXPECT_TRUE(o.stall_boot);
  EXPECT_FALSE(o.hangs_at_boot());
  EXPECT_EQ(o.hang_after, -1);
  AgentOptions prefix;
  EXPECT_NE(apply_cmdline_faults("topolab.fault=stall-bootx", prefix), "");
  EXPECT_FALSE(prefix.stall_boot);
}

TEST(CmdlineFaults, BadValuesAreReportedAndIgnored) {
  for (const char* bad :
       {"topolab.fault=hang-after:", "topolab.fault=hang-after:-1",
        "topolab.fault=hang-after:99999999999", "topolab.fault=crash", "topolab.fault="}) {
    AgentOptions o;
    std::string err = apply_cmdline_faults(bad, o);
    EXPECT_NE(err.find("expected none, garbage, hang-boot[-first], stall-boot or hang-after:N"),
              std::string::npos)
        << bad;
    EXPECT_EQ(o.hang_after, -1) << bad;
    EXPECT_FALSE(o.garbage) << bad;
    EXPECT_FALSE(o.hang_boot) << bad;
  }
}

}  // namespace
}  // namespace topolab::agent
