// Issue 25: the real Linux agent applies, reads back and restores guest settings, on a fake tree
// (`serve --settings-root DIR`: the build machine's own settings are never touched), driven by
// the real AgentClient.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "orchestrator/guest/agent/agent_client.hpp"
#include "tests/guest-agent/agent_process.hpp"
#include "tests/support/temp_dir.hpp"

namespace topolab {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
namespace fs = std::filesystem;

void put(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << text;
}
std::string get(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class AgentSettings : public ::testing::Test {
 protected:
  void SetUp() override {
    put(root_ / "sys/devices/system/cpu/smt/control", "on\n");
    put(root_ / "proc/sys/kernel/sched_autogroup_enabled", "1\n");
    put(root_ / "proc/sys/kernel/timer_migration", "1\n");
    put(root_ / "sys/kernel/debug/sched/nr_migrate", "32\n");
    // migration_cost_ns is missing: that row is listed with the reason.
  }
  testing::TempDir temp_{"topolab-agent-settings"};
  const fs::path root_ = temp_.path();
};

TEST_F(AgentSettings, HelloListsTheLinuxRowsWithValuesOrReasons) {
  testing::AgentProcess agent({"--settings-root", root_.string()});
  auto client = AgentClient::connect_unix(agent.socket(), 5000ms);
  ASSERT_TRUE(client.ok()) << client.error().message;
  auto hello = (*client)->wait_hello(5000ms);
  ASSERT_TRUE(hello.ok()) << hello.error().message;
  const auto& s = hello->settings;
  ASSERT_EQ(s.size(), 5u) << "the five Linux rows, no Windows one";
  EXPECT_EQ(*s.at("os.smt").value, "on");
  EXPECT_EQ(*s.at("os.sched_autogroup").value, 1);
  EXPECT_EQ(*s.at("os.sched_nr_migrate").value, 32);
  EXPECT_FALSE(s.at("os.sched_migration_cost_ns").value);
  EXPECT_NE(s.at("os.sched_migration_cost_ns").error.find("not available on this guest"),
            std::string::npos)
      << s.at("os.sched_migration_cost_ns").error;
}

// A settings file that is not one integer ("-", "1-2", "--5", " 7 x") is that row's error in
// hello, never an abort of the agent (redteam 2026-12-02: std::stoll threw on "-", exit 70 as
// soon as a host connected) nor a silent misread ("1-2" read as 1).
TEST_F(AgentSettings, AnUnreadableIntegerFileIsThatRowsErrorNotAnAbort) {
  for (const char* text : {"-\n", "1-2\n", "--5\n", "7 x\n", "99999999999999999999\n"}) {
    put(root_ / "proc/sys/kernel/timer_migration", text);
    testing::AgentProcess agent({"--settings-root", root_.string()});
    auto client = AgentClient::connect_unix(agent.socket(), 5000ms);
    ASSERT_TRUE(client.ok()) << client.error().message;
    auto hello = (*client)->wait_hello(5000ms);
    ASSERT_TRUE(hello.ok()) << text << ": " << hello.error().message;
    const auto& row = hello->settings.at("os.timer_migration");
    EXPECT_FALSE(row.value) << text;
    EXPECT_NE(row.error.find("expected an integer"), std::string::npos) << text << row.error;
    EXPECT_EQ(*hello->settings.at("os.sched_autogroup").value, 1) << "the other rows stay";
  }
}

TEST_F(AgentSettings, ConfigureAppliesReadsBackAndShutdownRestores) {
  testing::AgentProcess agent({"--settings-root", root_.string()});
  auto client = AgentClient::connect_unix(agent.socket(), 5000ms);
  ASSERT_TRUE(client.ok()) << client.error().message;
  ASSERT_TRUE((*client)->wait_hello(5000ms).ok());
  auto r = (*client)->configure({{"os.smt", "off"},
                                 {"os.sched_autogroup", 0},
                                 {"os.sched_nr_migrate", 8},
                                 {"os.sched_migration_cost_ns", 0},
                                 {"os.power_plan", "balanced"}},
                                5000ms);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(*r->at("os.smt").value, "off");
  EXPECT_EQ(*r->at("os.sched_autogroup").value, 0);
  EXPECT_EQ(*r->at("os.sched_nr_migrate").value, 8);
  EXPECT_NE(r->at("os.sched_migration_cost_ns").error.find("not available"), std::string::npos);
  EXPECT_EQ(r->at("os.power_plan").error,
            "os.power_plan is a Windows setting; this guest runs Linux");
  EXPECT_EQ(get(root_ / "sys/devices/system/cpu/smt/control"), "off");
  // A second change of one setting still restores the value from before the first.
  auto again = (*client)->configure({{"os.sched_autogroup", 1}}, 5000ms);
  ASSERT_TRUE(again.ok());
  ASSERT_TRUE((*client)->configure({{"os.sched_autogroup", 0}}, 5000ms).ok());
  ASSERT_TRUE((*client)->shutdown().ok());
  EXPECT_EQ(agent.wait_exit(5000ms), 0);
  EXPECT_EQ(get(root_ / "sys/devices/system/cpu/smt/control"), "on");
  EXPECT_EQ(get(root_ / "proc/sys/kernel/sched_autogroup_enabled"), "1");
  EXPECT_EQ(get(root_ / "sys/kernel/debug/sched/nr_migrate"), "32");
  EXPECT_EQ(get(root_ / "proc/sys/kernel/timer_migration"), "1\n") << "never changed, not written";
}

TEST_F(AgentSettings, AHostThatGoesAwayGetsItsChangesUndone) {
  testing::AgentProcess agent({"--settings-root", root_.string()});
  {
    auto client = AgentClient::connect_unix(agent.socket(), 5000ms);
    ASSERT_TRUE(client.ok()) << client.error().message;
    ASSERT_TRUE((*client)->wait_hello(5000ms).ok());
    ASSERT_TRUE((*client)->configure({{"os.timer_migration", 0}}, 5000ms).ok());
    EXPECT_EQ(get(root_ / "proc/sys/kernel/timer_migration"), "0");
  }
  // The next host finds the guest as it was (the agent restored when the session ended).
  auto next = AgentClient::connect_unix(agent.socket(), 5000ms);
  ASSERT_TRUE(next.ok()) << next.error().message;
  auto hello = (*next)->wait_hello(5000ms);
  ASSERT_TRUE(hello.ok());
  EXPECT_EQ(*hello->settings.at("os.timer_migration").value, 1);
}

TEST_F(AgentSettings, ABadRequestIsRefusedWholeAndChangesNothing) {
  testing::AgentProcess agent({"--settings-root", root_.string()});
  auto client = AgentClient::connect_unix(agent.socket(), 5000ms);
  ASSERT_TRUE(client.ok());
  ASSERT_TRUE((*client)->wait_hello(5000ms).ok());
  auto r = (*client)->configure({{"os.smt", "off"}, {"os.sched_autogroup", 7}}, 5000ms);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("os.sched_autogroup: expected an integer 0..1, got 7"),
            std::string::npos)
      << r.error().message;
  EXPECT_EQ(get(root_ / "sys/devices/system/cpu/smt/control"), "on\n");
}

}  // namespace
}  // namespace topolab
