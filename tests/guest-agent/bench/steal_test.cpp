#include "guest-agent/bench/steal.hpp"

#include <gtest/gtest.h>

namespace topolab::bench {
namespace {

TEST(Steal, EighthValueOfAggregateLine) {
  auto s = parse_steal_ticks("cpu  10 20 30 40 50 60 70 1234 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(*s, 1234u);
}

TEST(Steal, MissingOrShortLineIsError) {
  EXPECT_FALSE(parse_steal_ticks("cpu0 1 2 3 4 5 6 7 8\n"));
  EXPECT_FALSE(parse_steal_ticks("cpu  1 2 3 4\n"));
  EXPECT_FALSE(parse_steal_ticks("cpu  1 2 x 4 5 6 7 8\n"));
}

TEST(Steal, LiveProcStatReadable) { EXPECT_TRUE(read_steal_ticks().has_value()); }

}  // namespace
}  // namespace topolab::bench
