// Issue 25: the Windows agent's guest settings under Debian's wine 8.0, through the orchestrator's
// AgentClient. The test pins what wine really does, per call: NtQueryTimerResolution answers
// (current 1 ms) and NtSetTimerResolution returns success without changing it, so a request of
// 0.5 ms reads back 1 ms (the host's mismatch check catches that); PowerGetActiveScheme returns
// 120 (not implemented), so both power rows say "not supported on this system: ... returned 120".
// What only real Windows can show is the checklist in docs/windows.md.
#include <gtest/gtest.h>

#include "orchestrator/guest/agent/agent_client.hpp"
#include "tests/guest-agent/windows/wine_agent.hpp"

namespace topolab {
namespace {

using namespace testing;
using nlohmann::json;

const auto* const kWine = ::testing::AddGlobalTestEnvironment(new WineEnvironment);

TEST(WindowsAgentSettings, HelloListsEveryWindowsRowWithWhatWineAnswers) {
  TOPOLAB_REQUIRE_WINE();
  WineAgent agent;
  auto client = AgentClient::connect_tcp_loopback(agent.port(), 30000ms);
  ASSERT_TRUE(client.ok()) << client.error().message;
  auto hello = (*client)->wait_hello(10000ms);
  ASSERT_TRUE(hello.ok()) << hello.error().message;
  const auto& s = hello->settings;
  ASSERT_EQ(s.size(), 3u) << "the three Windows rows, no Linux one";
  ASSERT_TRUE(s.at("os.timer_resolution_ms").value) << s.at("os.timer_resolution_ms").error;
  EXPECT_DOUBLE_EQ(s.at("os.timer_resolution_ms").value->get<double>(), 1.0);
  for (const char* name : {"os.power_plan", "os.core_parking_min_cores_pct"}) {
    EXPECT_FALSE(s.at(name).value) << name;
    EXPECT_EQ(s.at(name).error, "not supported on this system: PowerGetActiveScheme returned 120")
        << name;
  }
  ASSERT_TRUE((*client)->shutdown().ok());
}

TEST(WindowsAgentSettings, ConfigureAnswersEachRowAsWineImplementsIt) {
  TOPOLAB_REQUIRE_WINE();
  WineAgent agent;
  auto client = AgentClient::connect_tcp_loopback(agent.port(), 30000ms);
  ASSERT_TRUE(client.ok()) << client.error().message;
  ASSERT_TRUE((*client)->wait_hello(10000ms).ok());
  auto r = (*client)->configure({{"os.timer_resolution_ms", 0.5},
                                 {"os.power_plan", "high_performance"},
                                 {"os.core_parking_min_cores_pct", 100},
                                 {"os.smt", "off"}},
                                30000ms);
  ASSERT_TRUE(r.ok()) << r.error().message;
  // NtSetTimerResolution succeeds, the read-back stays at wine's fixed 1 ms.
  ASSERT_TRUE(r->at("os.timer_resolution_ms").value) << r->at("os.timer_resolution_ms").error;
  EXPECT_DOUBLE_EQ(r->at("os.timer_resolution_ms").value->get<double>(), 1.0);
  const auto* row = protocol::find_setting("os.timer_resolution_ms");
  EXPECT_FALSE(protocol::setting_matches(*row, json(0.5), *r->at("os.timer_resolution_ms").value))
      << "0.5 requested, 1 seen: a mismatch, never a silent pass";
  // The power rows read the active scheme first: PowerGetActiveScheme is wine's stub.
  EXPECT_EQ(r->at("os.power_plan").error,
            "not supported on this system: PowerGetActiveScheme returned 120");
  EXPECT_EQ(r->at("os.core_parking_min_cores_pct").error,
            "not supported on this system: PowerGetActiveScheme returned 120");
  EXPECT_EQ(r->at("os.smt").error, "os.smt is a Linux setting; this guest runs Windows");
  ASSERT_TRUE((*client)->shutdown().ok());
  EXPECT_EQ(agent.wait_exit(20000ms), 0);
}

}  // namespace
}  // namespace topolab
