#include "orchestrator/run/experiment/shard.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "tests/orchestrator/run/experiment/designs.hpp"

namespace topolab::experiment {
namespace {

TEST(Shard, ParsesKOverNAndRefusesEverythingElse) {
  auto s = parse_shard("2/3");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->index, 2);
  EXPECT_EQ(s->count, 3);
  EXPECT_EQ(s->text(), "2/3");
  for (const char* bad : {"0/3", "4/3", "1/0", "a/3", "1/b", "/3", "1/", "3", "", "+1/3", "-1/3",
                          "1 /3", "1/3/3", "1/10001", "99999999999/3", "1/3x"}) {
    auto r = parse_shard(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_NE(r.error().message.find("expected K/N"), std::string::npos) << bad;
    }
  }
  EXPECT_FALSE(parse_shard_count("0").ok());
  EXPECT_EQ(*parse_shard_count("10000"), 10000);
  EXPECT_FALSE(parse_shard_count("10001").ok());
}

// Guest experiments split by configuration: each configuration in exactly one shard, its cells
// together; round robin in expansion order.
TEST(Shard, GuestConfigurationsGoToExactlyOneShardWithAllTheirCells) {
  auto e = parse_experiment(kCcxDesign, "m.toml", "/");
  ASSERT_TRUE(e.ok()) << e.error().message;
  const auto cells = expand_cells(*e);
  const auto configs = group_by_configuration(*e, cells);
  ASSERT_GE(configs.size(), 3u);
  std::multiset<std::string> seen;
  std::size_t cell_count = 0;
  for (int k = 1; k <= 3; ++k) {
    auto part = shard_configurations(*e, configs, {k, 3});
    ASSERT_TRUE(part.ok()) << part.error().message;
    for (const auto& c : *part) {
      seen.insert(c.key);
      cell_count += c.cells.size();
      const auto whole = std::find_if(configs.begin(), configs.end(),
                                      [&](const Configuration& x) { return x.key == c.key; });
      EXPECT_EQ(c.cells, whole->cells) << "a configuration's cells stay together";
    }
  }
  EXPECT_EQ(seen.size(), configs.size());
  for (const auto& c : configs) EXPECT_EQ(seen.count(c.key), 1u) << c.label();
  EXPECT_EQ(cell_count, cells.size());
  EXPECT_EQ((*shard_configurations(*e, configs, {1, 3}))[0].key, configs[0].key);
  auto too_many = shard_configurations(*e, configs, {1, static_cast<int>(configs.size()) + 1});
  ASSERT_FALSE(too_many.ok());
  EXPECT_NE(too_many.error().message.find("guest configuration(s)"), std::string::npos);
}

}  // namespace
}  // namespace topolab::experiment
