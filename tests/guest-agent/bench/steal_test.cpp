#include "guest-agent/bench/steal.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <string>

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

// The live value is the 8th number of /proc/stat's aggregate line, read independently here;
// steal only grows, so two reads around the agent's bracket it.
std::uint64_t steal_from_proc_stat() {
  std::ifstream in("/proc/stat");
  std::string cpu;
  std::uint64_t v[8] = {};
  in >> cpu;
  EXPECT_EQ(cpu, "cpu");
  for (auto& x : v) in >> x;
  EXPECT_TRUE(in) << "/proc/stat's first line has fewer than 8 numbers";
  return v[7];
}

TEST(Steal, LiveProcStatReadable) {
  const auto before = steal_from_proc_stat();
  auto s = read_steal_ticks();
  const auto after = steal_from_proc_stat();
  ASSERT_TRUE(s.has_value()) << "read_steal_ticks failed on a readable /proc/stat";
  EXPECT_GE(*s, before);
  EXPECT_LE(*s, after);
}

}  // namespace
}  // namespace topolab::bench
