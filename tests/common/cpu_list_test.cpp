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

// --- limits on the text, before expansion (issue 12, class 2) ---

TEST(CpuListLimits, TheLargestIdIsAcceptedTheNextIsNot) {
  auto top = CpuList::parse("8190-8191");
  ASSERT_TRUE(top.ok()) << top.error().message;
  EXPECT_EQ(top->size(), 2u);
  auto over = CpuList::parse("0,8192");
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.error().message,
            "invalid CPU list '0,8192': CPU id '8192' is beyond the maximum 8191");
}

// Each of these used to be expanded (or parsed as a number) before it was judged: the first
// asked for 4 billion ids, the others overflowed or expanded a million ids each.
TEST(CpuListLimits, HugeRangesAreRefusedOnTheText) {
  for (const char* text :
       {"0-4000000000", "0-1048576", "18446744073709551616", "5-99999999999999999999999"}) {
    auto l = CpuList::parse(text);
    ASSERT_FALSE(l.ok()) << text;
    EXPECT_NE(l.error().message.find("is beyond the maximum 8191"), std::string::npos)
        << l.error().message;
  }
}

TEST(CpuListLimits, OverlongTextIsRefusedBeforeParsing) {
  std::string text = "0";
  while (text.size() <= kMaxCpuListText) text += ",0";
  auto l = CpuList::parse(text);
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.error().message, "CPU list of " + std::to_string(text.size()) +
                                   " characters is longer than the 65536 allowed");
  // Every id of the largest host written singly still fits.
  std::string all;
  for (int i = 0; i < kMaxCpuIds; ++i) all += (i ? "," : "") + std::to_string(i);
  auto every = CpuList::parse(all);
  ASSERT_TRUE(every.ok()) << every.error().message;
  EXPECT_EQ(every->size(), static_cast<std::size_t>(kMaxCpuIds));
}

TEST(CpuListLimits, ErrorsQuoteOnlyTheStartOfLongText) {
  std::string text(5000, '7');
  auto l = CpuList::parse(text);
  ASSERT_FALSE(l.ok());
  EXPECT_LT(l.error().message.size(), 300u) << l.error().message;
  EXPECT_NE(l.error().message.find("(5000 characters)"), std::string::npos);
}

TEST(CpuListLimits, MasksAreBoundedByTheSameMaximum) {
  std::string top = "8" + std::string(2047, '0');  // bit 8191: the highest allowed
  auto ok = CpuList::parse_mask(top);
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok->to_string(), "8191");
  auto over = CpuList::parse_mask("1" + std::string(2048, '0'));  // bit 8192
  ASSERT_FALSE(over.ok());
  EXPECT_NE(over.error().message.find("sets CPU 8192, beyond the maximum 8191"), std::string::npos)
      << over.error().message;
  auto zeros = CpuList::parse_mask(std::string(4000, '0') + "3");  // leading zeros are fine
  ASSERT_TRUE(zeros.ok());
  EXPECT_EQ(zeros->to_string(), "0-1");
  EXPECT_FALSE(CpuList::parse_mask(std::string(kMaxCpuListText + 1, '0')).ok());
}

TEST(CpuListLimits, ABudgetBoundsManyListsTogetherBeforeExpansion) {
  CpuIdBudget budget(3 * 8192);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(CpuList::parse("0-8191", &budget).ok());
  EXPECT_EQ(budget.used(), 3u * 8192);
  auto fourth = CpuList::parse("0-8191", &budget);
  ASSERT_FALSE(fourth.ok());
  EXPECT_EQ(fourth.error().message,
            "CPU lists together name more than 24576 CPU ids; refusing to expand them");
  EXPECT_FALSE(CpuList::parse_mask("1", &budget).ok());
  EXPECT_EQ(budget.used(), 3u * 8192) << "a refused list takes nothing";
  // Overlapping ranges count once: "0-10,5-15" is 16 ids.
  CpuIdBudget small(16);
  auto merged = CpuList::parse("0-10,5-15", &small);
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  EXPECT_EQ(merged->size(), 16u);
}

}  // namespace
}  // namespace topolab
