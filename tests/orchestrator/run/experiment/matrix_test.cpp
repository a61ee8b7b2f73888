#include "orchestrator/run/experiment/matrix.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "tests/orchestrator/run/experiment/designs.hpp"

namespace topolab::experiment {
namespace {

Experiment design() {
  auto e = parse_experiment(kCcxDesign, "m.toml", "/");
  if (!e) throw std::runtime_error(e.error().message);
  return *e;
}

TEST(Matrix, FullFactorialMinusExclusions) {
  auto e = design();
  auto cells = expand_cells(e);
  // 3*2*2*2 = 24, minus dies+unpinned (1*1*2*2 = 4)
  EXPECT_EQ(cells.size(), 20u);
  std::set<std::string> keys;
  for (const auto& c : cells) {
    keys.insert(c.key);
    EXPECT_FALSE(c.factors_json()["expose"] == "dies" && c.factors_json()["policy"] == "unpinned");
  }
  EXPECT_EQ(keys.size(), 20u);
  EXPECT_EQ(cells[0].label(),
            "expose=flat policy=l3-aligned param.sqrt.threads=1 cmdline.nohz=off");
  EXPECT_EQ(cells[1].label(),
            "expose=flat policy=l3-aligned param.sqrt.threads=1 cmdline.nohz=true");
}

TEST(Matrix, NoFactorsIsOneCell) {
  auto e = parse_experiment("name=\"x\"\nlayout=\"l\"\n[[benchmark]]\nname=\"sqrt\"\n", "x", "/");
  ASSERT_TRUE(e.ok());
  auto cells = expand_cells(*e);
  ASSERT_EQ(cells.size(), 1u);
  EXPECT_EQ(group_by_configuration(*e, cells).size(), 1u);
}

TEST(Matrix, GroupsCellsByGuestConfigurationOnly) {
  auto e = design();
  auto cells = expand_cells(e);
  auto configs = group_by_configuration(e, cells);
  // Parameter levels do not need a boot: 3*2*2 - 2 excluded = 10 configurations.
  EXPECT_EQ(configs.size(), 10u);
  std::size_t total = 0;
  for (const auto& g : configs) {
    EXPECT_EQ(g.cells.size(), 2u) << g.label();  // threads=1 and threads=2
    for (int c : g.cells) EXPECT_EQ(cells[c].config_key, g.key);
    total += g.cells.size();
  }
  EXPECT_EQ(total, cells.size());
}

TEST(Matrix, ParamFactorsOverrideBenchmarkParams) {
  auto e = design();
  auto cells = expand_cells(e);
  auto p = benchmark_params(e, cells[2], 0);  // threads=2 level
  EXPECT_EQ(p["threads"], 2);
  EXPECT_EQ(p["n"], 1000);
  EXPECT_TRUE(benchmark_params(e, cells[2], 1).empty());  // c2c-latency is not affected
}

TEST(Matrix, ParamFactorWithoutBenchmarkAppliesToEveryBenchmark) {
  auto e = parse_experiment(R"(
name = "x"
layout = "l"
[factors]
"param.threads" = [1, 2]
"param.sqrt.threads" = [4]
[[benchmark]]
name = "spawn-loop"
[[benchmark]]
name = "sqrt"
)",
                            "x", "/");
  ASSERT_TRUE(e.ok()) << e.error().message;
  auto cells = expand_cells(*e);
  ASSERT_EQ(cells.size(), 2u);
  EXPECT_EQ(group_by_configuration(*e, cells).size(), 1u);
  EXPECT_EQ(benchmark_params(*e, cells[1], 0)["threads"], 2);
  EXPECT_EQ(benchmark_params(*e, cells[1], 1)["threads"], 4);  // the specific factor wins
}

TEST(Matrix, CmdlineExtra) {
  auto e = design();
  auto configs = group_by_configuration(e, expand_cells(e));
  EXPECT_EQ(cmdline_extra(configs[0]), "nohz=off");
  EXPECT_EQ(cmdline_extra(configs[1]), "nohz");
}

TEST(Matrix, BaselineCellReplacesOnlyBaselineFactors) {
  auto e = design();
  auto cells = expand_cells(e);
  ASSERT_EQ(cells.size(), 20u);  // the loop below must see every cell, never none
  int non_baseline = 0;
  for (const auto& c : cells) {
    int b = baseline_cell(e, cells, c);
    ASSERT_GE(b, 0);
    if (b != &c - cells.data()) ++non_baseline;
    auto bf = cells[b].factors_json(), cf = c.factors_json();
    EXPECT_EQ(bf["expose"], "flat");
    EXPECT_EQ(bf["policy"], cf["policy"]);
    EXPECT_EQ(bf["param.sqrt.threads"], cf["param.sqrt.threads"]);
    EXPECT_EQ(bf["cmdline.nohz"], cf["cmdline.nohz"]) << "a non-baseline factor was replaced";
  }
  // Only the flat cells are their own baseline: the other exposures point elsewhere.
  EXPECT_GT(non_baseline, 0);
  EXPECT_LT(non_baseline, 20);
}

TEST(Matrix, RunOrderIsSeededCompleteAndReproducible) {
  auto e = design();
  auto cells = expand_cells(e);
  auto configs = group_by_configuration(e, cells);
  auto seed = configuration_seed(e.seed, configs[0].key);
  auto a = configuration_runs(e, configs[0], 1, 3, seed);
  auto b = configuration_runs(e, configs[0], 1, 3, seed);
  ASSERT_EQ(a.size(), 2u * 2u * 3u);  // 2 cells x 2 benchmarks x 3 repetitions
  auto same = [](const RunSpec& x, const RunSpec& y) {
    return x.cell == y.cell && x.benchmark == y.benchmark && x.repetition == y.repetition;
  };
  EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin(), same));
  std::set<std::tuple<int, int, int>> all;
  for (const auto& r : a) all.emplace(r.cell, r.benchmark, r.repetition);
  EXPECT_EQ(all.size(), a.size());
  // Not the plain nested-loop order, and a different seed gives a different order.
  auto plain = a;
  std::sort(plain.begin(), plain.end(), [](const RunSpec& x, const RunSpec& y) {
    return std::tie(x.cell, x.benchmark, x.repetition) <
           std::tie(y.cell, y.benchmark, y.repetition);
  });
  EXPECT_FALSE(std::equal(a.begin(), a.end(), plain.begin(), same));
  auto c = configuration_runs(e, configs[0], 1, 3, seed + 1);
  EXPECT_FALSE(std::equal(a.begin(), a.end(), c.begin(), same));
}

TEST(Matrix, ShuffleIsAFixedPermutationForAFixedSeed) {
  std::vector<RunSpec> runs;
  for (int i = 0; i < 6; ++i) runs.push_back({i, 0, 1});
  shuffle_runs(runs, 42);
  std::vector<int> order;
  for (const auto& r : runs) order.push_back(r.cell);
  // Pinned: the recorded seed must reproduce the same order on every build.
  EXPECT_EQ(order, (std::vector<int>{4, 3, 0, 2, 5, 1})) << ::testing::PrintToString(order);
}

TEST(Matrix, ConfigurationSeedDependsOnKeyAndSeed) {
  EXPECT_EQ(configuration_seed(1, "{}"), configuration_seed(1, "{}"));
  EXPECT_NE(configuration_seed(1, "{}"), configuration_seed(2, "{}"));
  EXPECT_NE(configuration_seed(1, "{\"expose\":\"flat\"}"), configuration_seed(1, "{}"));
}

}  // namespace
}  // namespace topolab::experiment
