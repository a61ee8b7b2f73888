// A run's telemetry (issue 26): the sampler's counts on a known topology, a thread the test moves
// between CPUs is seen moving (sampled and by the kernel), and a real sqrt run carries CPU times
// that the result validator accepts.
#include "guest-agent/bench/telemetry.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "guest-agent/bench/benchmark.hpp"
#include "guest-agent/bench/cpu_board.hpp"
#include "guest-agent/bench/pinning.hpp"
#include "guest-agent/bench/sqrt_bench.hpp"
#include "guest-agent/bench/timing.hpp"
#include "protocol/benchmark_result.hpp"

namespace topolab::bench {
namespace {

// CPUs 0,1: L3 0 of package 0; CPU 2: L3 1 of package 0; CPU 3: L3 2 of package 1.
HostTopology four_cpus() {
  HostTopology t;
  const int l3[] = {0, 0, 1, 2}, package[] = {0, 0, 0, 1};
  for (int i = 0; i < 4; ++i) {
    CpuInfo c;
    c.id = i;
    c.l3 = l3[i];
    c.package = package[i];
    t.cpus.push_back(c);
  }
  t.l3_domains = {{0, CpuList{0, 1}, 0}, {1, CpuList{2}, 0}, {2, CpuList{3}, 0}};
  t.packages = {{0, CpuList{0, 1, 2}}, {1, CpuList{3}}};
  return t;
}

TEST(MigrationTally, CountsChangesAcrossL3GroupsAndPackages) {
  const HostTopology topo = four_cpus();
  MigrationTally tally(&topo);
  for (int cpu : {0, 1, 2, 3, 3}) tally.tick({{7, cpu}, {8, 0}});
  protocol::RunTelemetry t;
  tally.fill(t);
  EXPECT_EQ(t.samples, 5u);
  EXPECT_EQ(t.migrations, 3u);                // 0->1, 1->2, 2->3; thread 8 never moves
  EXPECT_EQ(t.migrations_cross_l3, 2u);       // 1->2, 2->3
  EXPECT_EQ(t.migrations_cross_package, 1u);  // 2->3
}

TEST(MigrationTally, WithoutATopologyCrossCountsAreOmittedWithTheReason) {
  MigrationTally tally(nullptr);
  tally.tick({{1, 0}});
  tally.tick({{1, 1}});
  protocol::RunTelemetry t;
  tally.fill(t);
  EXPECT_EQ(t.migrations, 1u);
  EXPECT_FALSE(t.migrations_cross_l3);
  EXPECT_EQ(t.omitted.at("migrations_cross_l3"), "the guest topology names no L3 groups");
}

TEST(TelemetryProbe, SeesAThreadTheTestMovesBetweenCpus) {
  const CpuList allowed = allowed_cpus();
  // One allowed CPU (a restricted runner): the thread cannot move and none may be counted.
  const std::vector<int> ids(allowed.begin(), allowed.end());
  const bool can_move = ids.size() >= 2;
  TelemetryProbe probe(nullptr);
  std::thread mover([&] {
    for (int round = 0; round < 4; ++round) {
      ASSERT_TRUE(pin_current_thread(ids[can_move ? round % 2 : 0]));
      const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(60);
      while (std::chrono::steady_clock::now() < until) {
      }
    }
  });
  mover.join();
  const protocol::RunTelemetry t = probe.finish();
  ASSERT_TRUE(t.migrations) << t.omitted.begin()->second;
  if (can_move) {
    EXPECT_GE(*t.migrations, 1u) << "samples " << t.samples;
  } else {
    EXPECT_EQ(*t.migrations, 0u);
  }
  EXPECT_GE(t.samples, 5u);
  if (t.kernel_migrations && can_move) {
    EXPECT_GE(*t.kernel_migrations, 3u);  // three re-pins at least
  }
  EXPECT_GT(t.cpu_user_s.value_or(0), 0.05);  // 240 ms of spinning, even when descheduled
}

TEST(TelemetryProbe, ASqrtRunCarriesTelemetryTheValidatorAccepts) {
  auto r = run_benchmark("sqrt", {{"threads", 2}, {"n", 3000000}, {"repeats", 1}}, BenchContext{});
  ASSERT_TRUE(r) << r.error().message;
  auto valid = protocol::validate_result(*r);
  ASSERT_TRUE(valid) << valid.error().message;
  ASSERT_TRUE(valid->telemetry);
  const auto& t = *valid->telemetry;
  const double wall = valid->samples.at(0);
  ASSERT_TRUE(t.cpu_user_s && t.cpu_sys_s && t.migrations && t.ctx_switches_voluntary);
  // CPU time can never exceed wall x threads (plus the clock ticks' granularity and the
  // sampler); the lower bound depends on the machine's load, so it is the guest test's.
  EXPECT_GT(*t.cpu_user_s, 0.0);
  EXPECT_LE(*t.cpu_user_s + *t.cpu_sys_s, wall * 2 * 1.1 + 0.05);
  EXPECT_EQ(protocol::result_to_json(*valid)["telemetry"], (*r)["telemetry"]);
}

// The Windows way (cpu_board.hpp), exercised on Linux: threads post their own CPUs.
TEST(CpuBoard, SeatedThreadsPostTheirCpusAndUnseatedOnesDoNot) {
  const CpuList allowed = allowed_cpus();
  const std::vector<int> ids(allowed.begin(), allowed.end());
  CpuBoard board;
  ASSERT_TRUE(board.open());
  CpuBoard second;
  EXPECT_FALSE(second.open()) << "one board at a time";
  note_current_cpu();  // this thread has no seat: nothing posted
  EXPECT_FALSE(board.any_posted());
  std::map<std::int64_t, int> seen;
  std::thread mover([&] {
    const CpuBoardSeat seat;
    for (int round = 0; round < 2; ++round) {
      ASSERT_TRUE(pin_current_thread(ids[static_cast<std::size_t>(round) % ids.size()]));
      note_current_cpu();
      auto now = board.read();
      ASSERT_EQ(now.size(), 1u);
      EXPECT_EQ(now.begin()->second, ids[static_cast<std::size_t>(round) % ids.size()]);
      if (!seen.empty()) {
        EXPECT_EQ(now.begin()->first, seen.begin()->first) << "one key";
      }
      seen = now;
    }
  });
  mover.join();
  EXPECT_TRUE(board.any_posted());
  // A later thread in the next slot gets another key: two threads, two keys.
  ASSERT_TRUE(run_threads({ids[0]}, [](int) -> Result<void> { return {}; }));
  EXPECT_EQ(board.read().size(), 2u);
}

TEST(TelemetryProbe, OnTheBoardASqrtRunIsCountedAndAPinnedOneDoesNotMove) {
  const CpuList allowed = allowed_cpus();
  const std::vector<int> ids(allowed.begin(), allowed.end());
  {
    TelemetryProbe probe(nullptr, /*sample=*/true, /*board=*/true);
    // Two threads pinned to one CPU each: the board sees them and no change.
    std::vector<int> cpus = {ids[0], ids[ids.size() - 1]};
    ASSERT_TRUE(run_threads(cpus, [](int) -> Result<void> {
      (void)sqrt_range(1, 400000);
      return {};
    }));
    const protocol::RunTelemetry t = probe.finish();
    ASSERT_TRUE(t.migrations) << (t.omitted.empty() ? "" : t.omitted.begin()->second);
    EXPECT_EQ(*t.migrations, 0u);
    EXPECT_FALSE(t.omitted.count("migrations"));
  }
  {
    // A thread that moves itself and posts between the moves (the sampler ticks every 10 ms).
    TelemetryProbe probe(nullptr, true, true);
    ASSERT_TRUE(run_threads({-1}, [&](int) -> Result<void> {
      for (int round = 0; round < 4; ++round) {
        TL_TRY(pin_current_thread(ids[static_cast<std::size_t>(round) % ids.size()]));
        const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(60);
        while (std::chrono::steady_clock::now() < until) note_current_cpu();
      }
      return {};
    }));
    const protocol::RunTelemetry t = probe.finish();
    ASSERT_TRUE(t.migrations);
    // Three moves between the rounds (a fourth if it started on the other CPU); a tick that the
    // load delays past a whole round sees fewer, never none.
    if (ids.size() >= 2) {
      EXPECT_GE(*t.migrations, 1u) << "samples " << t.samples;
      EXPECT_LE(*t.migrations, 4u);
    } else {
      EXPECT_EQ(*t.migrations, 0u);
    }
  }
  {
    // Nothing seated (the benchmark starts no thread of its own): omitted, with the reason.
    TelemetryProbe probe(nullptr, true, true);
    const protocol::RunTelemetry t = probe.finish();
    EXPECT_FALSE(t.migrations);
    EXPECT_NE(t.omitted.at("migrations").find("posted its CPU"), std::string::npos);
  }
}

}  // namespace
}  // namespace topolab::bench
