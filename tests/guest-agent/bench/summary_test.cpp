#include "guest-agent/bench/summary.hpp"

#include <gtest/gtest.h>

namespace topolab::bench {
namespace {

TEST(Summary, OddCountMedianIsMiddle) {
  Summary s = summarize({5, 1, 3});
  EXPECT_EQ(s.n, 3u);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_DOUBLE_EQ(s.max, 5);
  EXPECT_DOUBLE_EQ(s.cv, 2.0 / 3.0);  // sample stddev 2, mean 3
}

TEST(Summary, EvenCountMedianAveragesMiddlePair) {
  EXPECT_DOUBLE_EQ(summarize({4, 1, 2, 10}).median, 3);
}

TEST(Summary, SingleSampleHasZeroCv) {
  Summary s = summarize({7});
  EXPECT_EQ(s.n, 1u);
  EXPECT_DOUBLE_EQ(s.cv, 0);
  EXPECT_DOUBLE_EQ(s.median, 7);
}

TEST(Summary, EmptyGivesNullStatistics) {
  auto j = summary_to_json(summarize({}));
  EXPECT_EQ(j["n"], 0);
  EXPECT_TRUE(j["median"].is_null());
  EXPECT_TRUE(j["cv"].is_null());
}

TEST(Summary, JsonCarriesAllFields) {
  auto j = summary_to_json(summarize({1, 2}));
  for (const char* k : {"n", "min", "median", "mean", "max", "cv"}) EXPECT_TRUE(j.contains(k));
  EXPECT_DOUBLE_EQ(j["median"].get<double>(), 1.5);
}

}  // namespace
}  // namespace topolab::bench
