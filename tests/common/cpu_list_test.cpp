#include "common/cpu_list.hpp"

#include <gtest/gtest.h>

namespace topolab {
namespace {

TEST(CpuList, ParsesRangesAndSingles) {
  auto l = CpuList::parse("0-3,8,10-11\n");
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(l->size(), 7u);
  EXPECT_TRUE(l->contains(10));
  EXPECT_FALSE(l->contains(9));
  EXPECT_EQ(l->to_string(), "0-3,8,10-11");
}

TEST(CpuList, CanonicalisesUnorderedOverlappingInput) {
  auto l = CpuList::parse("5,1-3,2,4");
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->to_string(), "1-5");
}

TEST(CpuList, EmptyTextIsEmptyList) {
  auto l = CpuList::parse("  \n");
  ASSERT_TRUE(l.ok());
  EXPECT_TRUE(l->empty());
  EXPECT_EQ(l->to_string(), "");
}

TEST(CpuList, RejectsMalformedText) {
  for (const char* bad : {"a", "1-", "-1", "3-1", "1,,2", "1 2", "0x3", "99999999", ","}) {
    auto l = CpuList::parse(bad);
    EXPECT_FALSE(l.ok()) << bad;
    if (!l.ok()) {
      EXPECT_NE(l.error().message.find(bad), std::string::npos);
    }
  }
}

TEST(CpuList, ParsesHexMasks) {
  auto l = CpuList::parse_mask("00000000,0000ff0f\n");
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->to_string(), "0-3,8-15");
  auto high = CpuList::parse_mask("1,00000000");
  ASSERT_TRUE(high.ok());
  EXPECT_EQ(high->to_string(), "32");
  EXPECT_FALSE(CpuList::parse_mask("xyz").ok());
  EXPECT_FALSE(CpuList::parse_mask("").ok());
}

TEST(CpuList, SetOperations) {
  CpuList a{0, 1, 2, 3};
  CpuList b{2, 3, 4};
  EXPECT_EQ(a.united(b).to_string(), "0-4");
  EXPECT_EQ(a.intersected(b).to_string(), "2-3");
  EXPECT_EQ(a.minus(b).to_string(), "0-1");
  EXPECT_TRUE(a.intersects(b));
  EXPECT_TRUE(CpuList({2, 3}).is_subset_of(a));
  EXPECT_FALSE(b.is_subset_of(a));
}

}  // namespace
}  // namespace topolab
