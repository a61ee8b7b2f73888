// The vCPU sampler's thread (issue 26 item 2) over an injected reader: it reads until stopped,
// keeps a long run at bounded memory by thinning, stops at the reader's first error, and is
// joined on every path (stop, destructor, an exception thrown while it runs; run under TSan).
#include "orchestrator/run/experiment/vcpu_sampler.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>

namespace topolab::experiment {
namespace {

using namespace std::chrono_literals;

TEST(VcpuSampler, ReadsAtItsPeriodUntilStopped) {
  std::atomic<int> reads{0};
  VcpuSampler s(
      [&]() -> Result<std::vector<int>> {
        ++reads;
        return std::vector<int>{reads.load() % 2, 1};
      },
      {5ms, 4096});
  std::this_thread::sleep_for(100ms);
  auto t = s.stop();
  const int after_stop = reads.load();
  std::this_thread::sleep_for(30ms);
  EXPECT_EQ(reads.load(), after_stop);  // joined: no read after stop
  EXPECT_EQ(t.ticks.size(), static_cast<std::size_t>(after_stop));
  // Bounded rate: at most one read per period (plus the first), and it did read repeatedly.
  EXPECT_GE(t.ticks.size(), 3u);
  EXPECT_LE(t.ticks.size(), 100u / 5 + 2);
  EXPECT_EQ(t.interval_ms, 5);
  EXPECT_GE(t.read_us_median, 0.0);
  EXPECT_TRUE(s.error().empty());
  EXPECT_EQ(s.stop().ticks.size(), t.ticks.size());  // idempotent
}

TEST(VcpuSampler, ALongRunIsThinnedToBoundedTicks) {
  VcpuSampler s([]() -> Result<std::vector<int>> { return std::vector<int>{0}; }, {1ms, 8});
  std::this_thread::sleep_for(120ms);
  auto t = s.stop();
  EXPECT_LT(t.ticks.size(), 8u);
  EXPECT_GE(t.interval_ms, 8);  // doubled at each thinning
}

TEST(VcpuSampler, TheReadersFirstErrorEndsSampling) {
  std::atomic<int> reads{0};
  VcpuSampler s(
      [&]() -> Result<std::vector<int>> {
        if (++reads > 2)
          return make_error(ErrorKind::failed, "virDomainGetVcpus: domain is not running");
        return std::vector<int>{3};
      },
      {1ms, 4096});
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(reads.load(), 3);
  auto t = s.stop();
  EXPECT_EQ(t.ticks.size(), 2u);
  EXPECT_NE(s.error().find("not running"), std::string::npos);
}

TEST(VcpuSampler, IsJoinedWhenTheRunThrows) {
  std::atomic<int> reads{0};
  try {
    VcpuSampler s(
        [&]() -> Result<std::vector<int>> {
          ++reads;
          return std::vector<int>{0};
        },
        {1ms, 4096});
    std::this_thread::sleep_for(10ms);
    throw std::runtime_error("the run failed");
  } catch (const std::runtime_error&) {
  }
  const int after = reads.load();
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(reads.load(), after);
  EXPECT_GE(after, 1);
}

TEST(VcpuSampler, AReaderSlowerThanThePeriodStaysBounded) {
  std::atomic<int> reads{0};
  VcpuSampler s(
      [&]() -> Result<std::vector<int>> {
        ++reads;
        std::this_thread::sleep_for(10ms);
        return std::vector<int>{0};
      },
      {10ms, 4096});
  std::this_thread::sleep_for(150ms);
  s.stop();
  // 10 ms per read plus at least half a period between reads: ~10 in 150 ms, never a spin.
  EXPECT_LE(reads.load(), 12);
  EXPECT_GE(reads.load(), 3);
}

}  // namespace
}  // namespace topolab::experiment
