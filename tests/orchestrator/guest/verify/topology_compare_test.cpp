#include "orchestrator/guest/verify/topology_compare.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace topolab {
namespace {

CpuList L(const char* s) { return *CpuList::parse(s); }

// A hand-made topology: `packages` etc. as lists of CPU lists; SMT pairs are (n, n+1).
HostTopology make(std::vector<const char*> packages, std::vector<const char*> dies,
                  std::vector<const char*> l3, std::vector<const char*> nodes, int ncpus,
                  bool smt) {
  HostTopology t;
  int id = 0;
  for (auto p : packages) t.packages.push_back({id++, L(p)});
  id = 0;
  for (auto d : dies) t.dies.push_back({id++, 0, 0, L(d)});
  id = 0;
  for (auto c : l3) t.l3_domains.push_back({id++, L(c), 0});
  id = 0;
  for (auto n : nodes) t.numa_nodes.push_back({id++, L(n), 0, {}, false, {}});
  for (int c = 0; c < ncpus; ++c) {
    CpuInfo info;
    info.id = c;
    info.core = smt ? c / 2 : c;
    info.siblings = smt ? CpuList{c - c % 2, c - c % 2 + 1} : CpuList{c};
    t.cpus.push_back(info);
  }
  return t;
}

HostTopology ryzen_like() {
  return make({"0-15"}, {"0-7", "8-15"}, {"0-7", "8-15"}, {"0-15"}, 16, true);
}

TEST(TopologyCompare, IdenticalTopologiesMatch) {
  EXPECT_TRUE(compare_topologies(ryzen_like(), ryzen_like()).empty());
}

TEST(TopologyCompare, IdsAndOrderAreIgnored) {
  HostTopology seen = ryzen_like();
  std::swap(seen.dies[0], seen.dies[1]);
  seen.dies[0].id = 7;
  seen.l3_domains[1].id = 42;
  seen.packages[0].id = 3;
  EXPECT_TRUE(compare_topologies(ryzen_like(), seen).empty());
}

TEST(TopologyCompare, OneL3AcrossTwoSocketsIsReportedAtTheL3LevelOnly) {
  // The plain-EPYC+topoext failure: two sockets, but one L3 spanning both.
  HostTopology intended =
      make({"0-7", "8-15"}, {"0-7", "8-15"}, {"0-7", "8-15"}, {"0-15"}, 16, true);
  HostTopology seen = make({"0-7", "8-15"}, {"0-7", "8-15"}, {"0-15"}, {"0-15"}, 16, true);
  auto m = compare_topologies(intended, seen);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].level, "l3_domains");
  EXPECT_EQ(m[0].intended, "0-7 | 8-15");
  EXPECT_EQ(m[0].seen, "0-15");
}

TEST(TopologyCompare, EveryDifferingLevelIsNamed) {
  HostTopology intended = ryzen_like();
  // Dies not shown, no SMT, two NUMA nodes, one CPU missing.
  HostTopology seen = make({"0-14"}, {"0-14"}, {"0-7", "8-14"}, {"0-7", "8-14"}, 15, false);
  auto m = compare_topologies(intended, seen);
  std::vector<std::string> levels;
  for (const auto& x : m) levels.push_back(x.level);
  EXPECT_EQ(levels, (std::vector<std::string>{"cpus", "packages", "dies", "l3_domains",
                                              "smt_siblings", "numa_nodes"}));
  EXPECT_EQ(m[2].intended, "0-7 | 8-15");
  EXPECT_EQ(m[2].seen, "0-14");
  EXPECT_EQ(m[4].seen.substr(0, 9), "0 | 1 | 2");
}

TEST(TopologyCompare, MissingLevelIsShownAsNone) {
  HostTopology intended = ryzen_like();
  HostTopology seen = ryzen_like();
  seen.l3_domains.clear();  // `<cache level='3' mode='disable'/>`: no L3 at all
  auto m = compare_topologies(intended, seen);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].seen, "(none)");
}

TEST(TopologyCompare, OfflineCpusAreNotCompared) {
  HostTopology intended = ryzen_like();
  HostTopology seen = ryzen_like();
  CpuInfo offline;
  offline.id = 16;
  offline.online = false;
  seen.cpus.push_back(offline);
  EXPECT_TRUE(compare_topologies(intended, seen).empty());
}

TEST(TopologyCompare, SideBySideTableMarksMismatches) {
  HostTopology seen = ryzen_like();
  seen.l3_domains = {{0, L("0-15"), 0}};
  std::ostringstream out;
  print_topology_comparison(out, ryzen_like(), seen);
  std::string text = out.str();
  EXPECT_NE(text.find("l3_domains    0-7 | 8-15"), std::string::npos) << text;
  EXPECT_NE(text.find("MISMATCH"), std::string::npos);
  EXPECT_EQ(text.find("MISMATCH"), text.rfind("MISMATCH")) << "only one level differs";
}

// Two levels: a memoryless node seen with memory, and distances other than the intended ones,
// are mismatches like any other level.
TEST(TopologyCompare, MemorylessNodesAndDistances) {
  auto intended =
      make({"0-3"}, {"0", "1", "2", "3"}, {"0", "1", "2", "3"}, {"0-1", "2-3"}, 4, false);
  intended.numa_nodes[1].memoryless = true;
  intended.numa_nodes[0].distances = {10, 16};
  intended.numa_nodes[1].distances = {16, 10};
  auto seen = intended;
  EXPECT_TRUE(compare_topologies(intended, seen).empty());

  seen.numa_nodes[1].memoryless = false;
  seen.numa_nodes[0].distances = {10, 20};
  seen.numa_nodes[1].distances = {20, 10};
  auto m = compare_topologies(intended, seen);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].level, "memoryless_nodes");
  EXPECT_EQ(m[0].intended, "2-3");
  EXPECT_EQ(m[0].seen, "(none)");
  EXPECT_EQ(m[1].level, "numa_distances");
  EXPECT_EQ(m[1].intended, "0-1: 10 16 | 2-3: 16 10");
  EXPECT_EQ(m[1].seen, "0-1: 10 20 | 2-3: 20 10");

  seen.numa_nodes[0].distances.clear();  // the guest did not report them
  m = compare_topologies(intended, seen);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[1].seen, "(unknown)");
  // No intended distances: nothing to compare (libvirt's default was used).
  intended.numa_nodes[0].distances.clear();
  intended.numa_nodes[1].memoryless = false;
  seen.numa_nodes[1].memoryless = false;
  EXPECT_TRUE(compare_topologies(intended, seen).empty());
}

}  // namespace
}  // namespace topolab
