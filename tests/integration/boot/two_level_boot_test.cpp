// A real TCG boot of a small two-level layout: 2 NUMA nodes x 2 L3 groups x 1 core, node 1
// memoryless, distances 10/16. The guest's own sysfs (read by the agent) must show 2 nodes,
// 4 L3 domains (2 in each node), node 1 without memory and the distances as given. 4 vCPUs
// keep the TCG boot short (about a minute here under load).
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/support/child_process.hpp"
#include "tests/support/temp_dir.hpp"

namespace topolab::testing {
namespace {

std::string groups(const nlohmann::json& topo, const char* level) {
  std::string out;
  for (const auto& g : topo.at(level))
    out += (out.empty() ? "" : " | ") + g.at("cpus").get<std::string>();
  return out;
}

TEST(RealTwoLevelBoot, MemorylessNodeAndDistancesAreSeenByTheGuest) {
  TempDir dir("topolab-two-level");
  const auto layout = dir.path() / "two-level.toml";
  std::ofstream(layout) << "name = \"two-level\"\n[guest]\nl3_groups = 4\ncores_per_group = 1\n"
                           "memory_mib = 1024\nnuma_nodes = 2\nmemoryless_nodes = [1]\n"
                           "node_distances = [[10, 16], [16, 10]]\n[expose]\nas = \"dies\"\n";
  const std::string marker = "it" + std::to_string(getpid()) + "-two-level";
  auto r = run_cli({"boot", layout.string(), "--policy", "unpinned", "--json", "--run-id", marker,
                    "--accel", "tcg", "--hello-timeout", "300000", "--boot-retries", "3"},
                   std::chrono::minutes(6));
  EXPECT_FALSE(r.timed_out);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << r.out;
  EXPECT_TRUE(j["match"].get<bool>()) << j["mismatches"].dump();
  const auto& seen = j["seen"];
  EXPECT_EQ(groups(seen, "numa_nodes"), "0-1 | 2-3");
  EXPECT_EQ(groups(seen, "l3_domains"), "0 | 1 | 2 | 3");
  ASSERT_EQ(seen["numa_nodes"].size(), 2u);
  EXPECT_FALSE(seen["numa_nodes"][0].value("memoryless", false));
  EXPECT_GT(seen["numa_nodes"][0]["memory_kib"].get<long>(), 0);
  EXPECT_TRUE(seen["numa_nodes"][1].value("memoryless", false)) << seen["numa_nodes"].dump();
  EXPECT_EQ(seen["numa_nodes"][1]["memory_kib"].get<long>(), 0);
  EXPECT_EQ(seen["numa_nodes"][0]["distances"].dump(), "[10,16]");
  EXPECT_EQ(seen["numa_nodes"][1]["distances"].dump(), "[16,10]");
  EXPECT_EQ(topolab_domains_with(marker), std::vector<std::string>{});
}

}  // namespace
}  // namespace topolab::testing
