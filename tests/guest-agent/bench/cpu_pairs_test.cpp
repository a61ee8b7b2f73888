// plan_cpu_pairs: the one pair plan of c2c-latency and migration.
#include "guest-agent/bench/cpu_pairs.hpp"

#include <gtest/gtest.h>

namespace topolab::bench {
namespace {

TEST(CpuPairs, AllIsEveryUnorderedPairInListOrder) {
  auto pairs = plan_cpu_pairs("c2c-latency", CpuList{0, 2, 5}, "all");
  ASSERT_TRUE(pairs) << pairs.error().message;
  EXPECT_EQ(*pairs, (CpuPairs{{0, 2}, {0, 5}, {2, 5}}));
}

TEST(CpuPairs, FirstIsTheFirstCpuAgainstEachOther) {
  auto pairs = plan_cpu_pairs("migration", CpuList{3, 4, 7, 9}, "first");
  ASSERT_TRUE(pairs) << pairs.error().message;
  EXPECT_EQ(*pairs, (CpuPairs{{3, 4}, {3, 7}, {3, 9}}));
}

TEST(CpuPairs, FewerThanTwoCpusHaveNoPairs) {
  for (const char* mode : {"all", "first"}) {
    auto pairs = plan_cpu_pairs("c2c-latency", CpuList{1}, mode);
    ASSERT_TRUE(pairs) << pairs.error().message;
    EXPECT_TRUE(pairs->empty()) << mode;
  }
}

TEST(CpuPairs, AtTheLimitIsPlanned) {
  // 4 CPUs: 6 pairs for all, 3 for first.
  EXPECT_EQ(plan_cpu_pairs("c2c-latency", CpuList::range(0, 3), "all", 6)->size(), 6u);
  EXPECT_EQ(plan_cpu_pairs("c2c-latency", CpuList::range(0, 3), "first", 3)->size(), 3u);
}

TEST(CpuPairs, OverTheLimitIsRefusedAsInputBeforeBuilding) {
  // 8192 CPUs: 33,550,336 pairs, counted rather than built.
  auto pairs = plan_cpu_pairs("migration", CpuList::range(0, 8191), "all");
  ASSERT_FALSE(pairs);
  EXPECT_TRUE(pairs.error().is(ErrorKind::input));
  EXPECT_EQ(pairs.error().message,
            "migration: 33550336 CPU pairs, more than 4096; name fewer cpus or use pairs=first");
  auto first = plan_cpu_pairs("c2c-latency", CpuList::range(0, 4097), "first");
  ASSERT_FALSE(first);
  EXPECT_NE(first.error().message.find("c2c-latency: 4097 CPU pairs"), std::string::npos);
}

}  // namespace
}  // namespace topolab::bench
