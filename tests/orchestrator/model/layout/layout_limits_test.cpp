// Issue 12, class 2: CPU lists in layouts are bounded on their text, before expansion.
#include <gtest/gtest.h>

#include <string>

#include "orchestrator/model/layout/layout.hpp"

namespace topolab {
namespace {

std::string explicit_layout(int lists, const std::string& each) {
  std::string text =
      "name = \"x\"\n[guest]\nl3_groups = 1\ncores_per_group = 1\nthreads_per_core = 1\n"
      "[placement]\npolicy = \"explicit\"\nexplicit = [";
  for (int i = 0; i < lists; ++i) text += (i ? ", \"" : "\"") + each + "\"";
  return text + "]\n";
}

// 1100 lists of all 8192 CPUs: 9 million ids from 10 KB of text. Before the budget, 20 000
// lists of a million ids each (250 KB) asked for 80 GB.
TEST(LayoutLimits, ExplicitListsShareOneExpansionBudget) {
  auto l = parse_layout(explicit_layout(1100, "0-8191"), "big.toml");
  ASSERT_FALSE(l.ok());
  EXPECT_NE(l.error().message.find("placement.explicit: CPU lists together name more than "
                                   "8388608 CPU ids; refusing to expand them"),
            std::string::npos)
      << l.error().message;
}

TEST(LayoutLimits, ExplicitListCountIsBounded) {
  auto l = parse_layout(explicit_layout(8193, "0"), "many.toml");
  ASSERT_FALSE(l.ok());
  EXPECT_NE(l.error().message.find("placement.explicit: more than 8192 lists"), std::string::npos)
      << l.error().message;
}

TEST(LayoutLimits, HugeRangesAreRefusedOnTheirText) {
  auto l = parse_layout(
      "name = \"x\"\n[guest]\nl3_groups = 1\ncores_per_group = 1\nthreads_per_core = 1\n"
      "[placement]\nhost_cpus = \"0-4000000000\"\n",
      "range.toml");
  ASSERT_FALSE(l.ok());
  EXPECT_NE(l.error().message.find("CPU id '4000000000' is beyond the maximum 8191"),
            std::string::npos)
      << l.error().message;
  EXPECT_NE(l.error().message.find("range.toml"), std::string::npos) << l.error().message;
}

}  // namespace
}  // namespace topolab
