// The two-level fields (guest.numa_nodes, memoryless_nodes, node_distances): TOML, --set,
// experiment levels and JSON go through the one field table; every refusal names FILE:LINE.
#include <gtest/gtest.h>

#include <string>

#include "orchestrator/model/layout/layout.hpp"
#include "orchestrator/model/layout/layout_fields.hpp"

namespace topolab {
namespace {

std::string two_level(const std::string& extra, const std::string& groups = "4") {
  return "[guest]\nl3_groups = " + groups + "\ncores_per_group = 1\nnuma_nodes = 2\n" + extra +
         "[expose]\nas = \"dies\"\n";
}

TEST(TwoLevelLayout, FileFillsTheFields) {
  auto l = parse_layout(
      two_level("memoryless_nodes = [1]\nnode_distances = [[10, 21], [21, 10]]\n"), "t.toml");
  ASSERT_TRUE(l) << l.error().message;
  EXPECT_EQ(l->numa_nodes, 2);
  EXPECT_EQ(l->groups_per_node(), 2);
  EXPECT_EQ(l->memoryless_nodes, std::vector<int>{1});
  EXPECT_FALSE(l->node_has_memory(1));
  EXPECT_TRUE(l->node_has_memory(0));
  ASSERT_EQ(l->node_distances.size(), 2u);
  EXPECT_EQ(l->node_distances[0][1], 21);
  auto j = layout_to_json(*l);
  EXPECT_EQ(j.at("guest.numa_nodes"), 2);
  EXPECT_EQ(j.at("guest.memoryless_nodes").dump(), "[1]");
  EXPECT_EQ(j.at("guest.node_distances").dump(), "[[10,21],[21,10]]");
}

// Stored results of layouts without the fields must still match their layouts on resume.
TEST(TwoLevelLayout, UnsetFieldsStayOutOfTheJson) {
  auto l = *load_layout_or_preset("ryzen-1700x");
  auto j = layout_to_json(l);
  EXPECT_FALSE(j.contains("guest.numa_nodes"));
  EXPECT_FALSE(j.contains("guest.memoryless_nodes"));
  EXPECT_FALSE(j.contains("guest.node_distances"));
}

TEST(TwoLevelLayout, SetAndLevelsUseTheTable) {
  auto l = *load_layout_or_preset("threadripper-1950x");
  ASSERT_TRUE(set_layout_field(l, "nodes", "2"));
  ASSERT_TRUE(set_layout_field(l, "guest.memoryless_nodes", "1"));
  ASSERT_TRUE(set_layout_field(l, "distances", "10,32;32,10"));
  EXPECT_TRUE(validate_layout(l)) << validate_layout(l).error().message;
  EXPECT_EQ(l.node_distances[1][0], 32);
  ASSERT_TRUE(
      set_layout_level(l, "guest.node_distances", nlohmann::json::parse("[[10,16],[16,10]]")));
  EXPECT_EQ(l.node_distances[1][0], 16);
  ASSERT_TRUE(set_layout_level(l, "memoryless_nodes", nlohmann::json::parse("[0]")));
  EXPECT_EQ(l.memoryless_nodes, std::vector<int>{0});
  auto bad = set_layout_field(l, "memoryless_nodes", "1,x");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("guest.memoryless_nodes: expected an integer"),
            std::string::npos);
}

struct Refusal {
  std::string text, where, why;
};

TEST(TwoLevelLayout, RefusalsNameFileLineAndReason) {
  const std::vector<Refusal> cases = {
      {two_level("", "3"), "t.toml:1:", "2 nodes do not divide 3 L3 groups"},
      {two_level("memoryless_nodes = [0, 1]\n"), "t.toml:1:", "every node is memoryless"},
      {two_level("memoryless_nodes = [2]\n"), "t.toml:1:", "node 2 out of range (expected 0 to 1)"},
      {two_level("memoryless_nodes = [1, 1]\n"), "t.toml:5:", "node 1 listed twice"},
      {two_level("node_distances = [[10, 16], [20, 10]]\n"), "t.toml:1:", "not symmetric"},
      {two_level("node_distances = [[10, 300], [300, 10]]\n"),
       "t.toml:5:", "expected distances from 10 to 254, got 300"},
      {two_level("node_distances = [[10, 16, 16], [16, 10, 16], [16, 16, 10]]\n"),
       "t.toml:1:", "expected 2 rows (one per node), got 3"},
      {two_level("node_distances = [[10, 16], [16]]\n"), "t.toml:1:", "expected 2 values, got 1"},
      {two_level("node_distances = [[12, 16], [16, 10]]\n"),
       "t.toml:1:", "expected 10 on the diagonal, got 12"},
      {two_level("node_distances = [10, 16]\n"),
       "t.toml:5:", "expected an array of integers, got an integer"},
      {"[guest]\nl3_groups = 2\ncores_per_group = 1\nnuma_nodes = 65\n",
       "t.toml:4:", "guest.numa_nodes: expected an integer from 1 to 64, got 65"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    auto l = parse_layout(c.text, "t.toml");
    ASSERT_FALSE(l);
    EXPECT_EQ(l.error().kind, ErrorKind::input);
    EXPECT_EQ(l.error().message.rfind(c.where, 0), 0u) << l.error().message;
    EXPECT_NE(l.error().message.find(c.why), std::string::npos) << l.error().message;
  }
}

TEST(TwoLevelLayout, NodeFieldsNeedNodes) {
  auto l = parse_layout("[guest]\nl3_groups = 2\ncores_per_group = 1\nmemoryless_nodes = [1]\n",
                        "t.toml");
  ASSERT_FALSE(l);
  EXPECT_NE(l.error().message.find("needs guest.numa_nodes"), std::string::npos);
}

TEST(TwoLevelLayout, PresetsHaveTwoLevels) {
  auto tr = *load_layout_or_preset("threadripper-2990wx");
  EXPECT_EQ(tr.numa_nodes, 4);
  EXPECT_EQ(tr.l3_groups, 8);
  EXPECT_EQ(tr.memoryless_nodes, (std::vector<int>{1, 3}));
  EXPECT_EQ(tr.node_distances.size(), 4u);
  auto half = *load_layout_or_preset("threadripper-2990wx-half");
  EXPECT_EQ(half.numa_nodes, 2);
  EXPECT_EQ(half.expose, Exposure::kDies);
  auto local = *load_layout_or_preset("threadripper-1950x-local");
  EXPECT_EQ(local.numa_nodes * 100 + local.groups_per_node() * 10 + local.cores_per_group, 224);
  auto epyc = *load_layout_or_preset("epyc-7451");
  EXPECT_EQ(epyc.numa_nodes * 100 + epyc.groups_per_node() * 10 + epyc.cores_per_group, 423);
  EXPECT_TRUE(epyc.memoryless_nodes.empty());
}

}  // namespace
}  // namespace topolab
