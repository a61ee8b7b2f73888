// The last step of an own guest's graceful shutdown (issue 14): a guest that acknowledges
// neither the agent's request nor the ACPI power button is destroyed after the bound. Booted
// with the built-in image (no real OS would ignore both): its agent, PID 1 with
// `topolab.fault=hang-after:1`, answers the placement and then nothing, and nothing in it
// handles the ACPI power button. graceful_shutdown makes the session take the own-guest path.
#include <gtest/gtest.h>
#include <unistd.h>

#include "orchestrator/guest/session/guest_session.hpp"
#include "tests/support/builtin_boot.hpp"
#include "tests/support/child_process.hpp"

namespace topolab {
namespace {

using namespace std::chrono_literals;

TEST(OwnGuestShutdown, GuestIgnoringAgentAndAcpiIsDestroyedAfterTheBound) {
  const std::string marker = "it" + std::to_string(getpid()) + "-destroy";
  auto built = testing::builtin_tcg_boot({{"placement.policy", "unpinned"}});
  ASSERT_TRUE(built) << built.error().message;
  BootRequest& req = *built;
  req.image.cmdline += " topolab.fault=hang-after:1";
  req.run_id = marker;
  req.hello_timeout = 300s;
  req.boot_retries = 3;  // 16 vCPUs: a real TCG hang (~1 in 10-15 boots) is retried, not failed
  req.graceful_shutdown = true;
  req.shutdown_timeout = 3000ms;
  auto session = GuestSession::boot(req);
  ASSERT_TRUE(session) << session.error().message;

  auto stopped = (*session)->shutdown();
  auto t = (*session)->timings();
  ASSERT_FALSE(stopped.ok()) << "a guest that ignored the shutdown stopped cleanly: " << t.dump();
  const auto& msg = stopped.error().message;
  EXPECT_NE(msg.find("agent shutdown:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("still running 3000 ms after the ACPI power button (destroyed)"),
            std::string::npos)
      << msg;
  EXPECT_EQ(t.value("shutdown_by", ""), "destroy") << t.dump();
  std::cout << "[figures] shutdown " << t.value("shutdown_ms", -1) << " ms, ended by "
            << t.value("shutdown_by", "?") << "\n";
  // The agent's ack timeout (10 s) plus the ACPI bound (3 s), and not much more.
  EXPECT_GE(t.value("shutdown_ms", 0), 13000) << t.dump();
  EXPECT_LT(t.value("shutdown_ms", 0), 60000) << t.dump();
  session->reset();
  EXPECT_EQ(testing::topolab_domains_with(marker), std::vector<std::string>{});
}

}  // namespace
}  // namespace topolab
