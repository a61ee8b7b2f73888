// Event-driven wait for a domain's shut-off (issue 17) on libvirt's test driver, which delivers
// lifecycle events like the QEMU driver does: the wait ends when the event arrives, well before
// its re-check, and a domain that keeps running still times out.
#include "orchestrator/libvirt/virt/event_loop.hpp"

#include <gtest/gtest.h>

#include <thread>

#include "orchestrator/libvirt/virt/domain_lifecycle.hpp"
#include "tests/orchestrator/libvirt/virt/test_domain.hpp"

namespace topolab::virt {
namespace {

using testing::test_domain_xml;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
class EventLoop : public testing::TestDriver {};

TEST_F(EventLoop, ShutoffWaitIsWokenByTheStopEvent) {
  ASSERT_TRUE(ensure_event_loop());
  auto dom = define_domain(conn(), test_domain_xml("topolab-event-1"));
  ASSERT_TRUE(dom.ok());
  ASSERT_TRUE(start_domain(dom->get()).ok());
  const auto t0 = Clock::now();
  std::thread stopper([&] {
    std::this_thread::sleep_for(milliseconds(150));
    (void)destroy_domain(dom->get());
  });
  // A re-check far beyond the event's ~150 ms: only the event can end the wait early, however
  // loaded the machine (the default 1 s re-check forced a bound of 800 ms, ~5x the expected).
  const auto recheck = milliseconds(60000);
  auto waited = wait_for_shutoff_event(dom->get(), 2 * recheck, recheck);
  const auto took = std::chrono::duration_cast<milliseconds>(Clock::now() - t0);
  stopper.join();
  ASSERT_TRUE(waited.has_value()) << "events unavailable on the test driver";
  EXPECT_TRUE(waited->ok()) << waited->error().message;
  EXPECT_GE(took.count(), 140);
  EXPECT_LT(took, recheck / 2) << "not woken by the event (the re-check is every 60 s)";
  EXPECT_TRUE(destroy_and_undefine(dom->get()).ok());
}

TEST_F(EventLoop, RunningDomainTimesOutAndAStoppedOneReturnsAtOnce) {
  auto dom = define_domain(conn(), test_domain_xml("topolab-event-2"));
  ASSERT_TRUE(dom.ok());
  auto stopped = wait_for_shutoff_event(dom->get(), milliseconds(5000));
  ASSERT_TRUE(stopped.has_value());
  EXPECT_TRUE(stopped->ok()) << "a defined, never started domain is shut off";
  ASSERT_TRUE(start_domain(dom->get()).ok());
  auto waited = wait_for_shutoff_event(dom->get(), milliseconds(80));
  ASSERT_TRUE(waited.has_value());
  ASSERT_FALSE(waited->ok());
  EXPECT_NE(waited->error().message.find("still running after 80 ms"), std::string::npos);
  EXPECT_TRUE(destroy_and_undefine(dom->get()).ok());
}

}  // namespace
}  // namespace topolab::virt
