// Hand-made hosts: the planner's messages, suggestions, policies and emulator placement.
#include <gtest/gtest.h>

#include <set>

#include "orchestrator/planning/placement/placement_plan.hpp"
#include "orchestrator/planning/placement/synthetic_host.hpp"
#include "tests/orchestrator/planning/placement/test_layout.hpp"

namespace topolab {
namespace {

// 1 package, 4 L3 domains of 4 cores, no SMT: L3s 0-3, 4-7, 8-11, 12-15.
HostTopology four_l3_host() { return make_synthetic_host({1, 4, 4, 1}); }

Layout layout(int groups, int cores, int threads, Exposure e = Exposure::kDies) {
  return testing::test_layout(groups, cores, threads, e);
}

std::string message(const Result<PlacementPlan>& r) { return r ? "" : r.error().message; }

TEST(PlacementMessages, TooFewL3DomainsNamesThemAndSuggests) {
  auto l = layout(3, 4, 1);
  l.host_cpus = CpuList::range(8, 15);
  auto r = plan_placement(l, four_l3_host());
  ASSERT_FALSE(r);
  EXPECT_EQ(message(r).rfind("3 L3 groups requested, host offers 2 L3 domains within 8-15 "
                             "(8-11, 12-15)",
                             0),
            0u)
      << message(r);
  EXPECT_NE(message(r).find("nearest feasible: l3_groups=2 (--groups 2)"), std::string::npos)
      << message(r);
}

TEST(PlacementMessages, SmtOnHostWithoutSmtSuggestsSameVcpuCount) {
  auto r = plan_placement(layout(2, 2, 2), four_l3_host());
  ASSERT_FALSE(r);
  EXPECT_NE(message(r).find("SMT requested (threads_per_core=2) but the host has no SMT"),
            std::string::npos)
      << message(r);
  EXPECT_NE(message(r).find("nearest feasible: threads_per_core=1 cores_per_group=4"),
            std::string::npos)
      << message(r);
}

TEST(PlacementMessages, GroupLargerThanAnyL3) {
  auto r = plan_placement(layout(2, 6, 1), four_l3_host());
  ASSERT_FALSE(r);
  // Issue 32 class 9: the shape names threads_per_core, the field an SMT layout changes.
  EXPECT_NE(message(r).find("L3 group of 6 cores x 1 thread (threads_per_core=1) is larger than "
                            "any host L3 domain: the largest offers 4 whole cores"),
            std::string::npos)
      << message(r);
  EXPECT_NE(message(r).find("nearest feasible: cores_per_group=4"), std::string::npos);
}

TEST(PlacementMessages, SomeDomainsTooSmallAfterRestriction) {
  auto l = layout(2, 4, 1);
  l.host_cpus = CpuList::range(2, 9);  // 2-3 | 4-7 | 8-9
  auto r = plan_placement(l, four_l3_host());
  ASSERT_FALSE(r);
  EXPECT_NE(message(r).find("2 L3 groups of 4 cores requested, only 1 host L3 domain within "
                            "2-9 hold 4 whole cores (4-7)"),
            std::string::npos)
      << message(r);
}

TEST(PlacementMessages, MemoryLargerThanHost) {
  auto l = layout(2, 2, 1);
  l.memory_mib = 40000;  // host: one node of 16384 MiB
  auto r = plan_placement(l, four_l3_host());
  ASSERT_FALSE(r);
  EXPECT_NE(message(r).find("guest memory 40000 MiB is larger than the host's memory (16384 MiB"),
            std::string::npos)
      << message(r);
  EXPECT_NE(message(r).find("nearest feasible: memory_mib=10000"), std::string::npos);
}

TEST(PlacementMessages, NumaCellLargerThanItsNode) {
  // 2 packages x 1 L3 x 4 cores, one 4096 MiB node per package; 2 cells of 6000 MiB.
  auto host = make_synthetic_host({2, 1, 4, 1, false, false, 4096});
  auto l = layout(2, 4, 1, Exposure::kNuma);
  l.memory_mib = 7000;
  EXPECT_TRUE(plan_placement(l, host));
  l.memory_mib = 8000;
  EXPECT_TRUE(plan_placement(l, host)) << "4000 MiB per node fits 4096";
  l.memory_mib = 8192 - 10;
  l.l3_groups = 2;
  auto ok = plan_placement(l, host);
  ASSERT_TRUE(ok);
  auto one = layout(1, 4, 1, Exposure::kNuma);
  one.memory_mib = 6000;
  auto r = plan_placement(one, host);
  ASSERT_FALSE(r);
  EXPECT_NE(message(r).find("host node 0 need 6000 MiB, the node holds 4096 MiB"),
            std::string::npos)
      << message(r);
}

TEST(PlacementMessages, OverlappingCpuSets) {
  auto l = layout(1, 2, 1);
  l.host_cpus = CpuList::range(0, 7);
  l.housekeeping_cpus = CpuList{7, 8};
  auto r = plan_placement(l, four_l3_host());
  ASSERT_FALSE(r);
  EXPECT_NE(message(r).find("overlap on 7"), std::string::npos) << message(r);
}

TEST(PlacementMessages, UnknownHostCpus) {
  auto l = layout(1, 2, 1);
  l.host_cpus = CpuList::range(12, 20);
  auto r = plan_placement(l, four_l3_host());
  ASSERT_FALSE(r);
  EXPECT_NE(message(r).find("names CPUs 16-20 the host does not have"), std::string::npos);
}

TEST(PlacementMessages, NoL3SuggestsCompact) {
  auto host = make_synthetic_host({2, 1, 4, 1, false, false, 8192, false});
  auto r = plan_placement(layout(2, 2, 1), host);
  ASSERT_FALSE(r);
  EXPECT_NE(message(r).find("reports no L3 domains"), std::string::npos);
  EXPECT_NE(message(r).find("nearest feasible: policy compact"), std::string::npos);
}

TEST(PlacementL3Aligned, SmtSiblingsAndNodePreference) {
  // 2 packages x 2 L3 x 4 cores x 2 threads; node 0 has little memory: groups go to node 1.
  auto host = make_synthetic_host({2, 2, 4, 2, false, false, 8192});
  host.numa_nodes[0].memory_kib = 512 * 1024;
  auto l = layout(2, 4, 2);
  l.memory_mib = 4096;
  auto p = plan_placement(l, host);
  ASSERT_TRUE(p) << message(p);
  EXPECT_EQ(p->groups[0].host_l3, 2);
  EXPECT_EQ(p->groups[1].host_l3, 3);
  EXPECT_EQ(p->memory_nodes.to_string(), "1");
  EXPECT_TRUE(p->memory_strict);
  // vCPU 0 and 1 are siblings: host CPUs n and n + 16.
  EXPECT_EQ(p->vcpus[0].host_cpus.first() + 16, p->vcpus[1].host_cpus.first());
  EXPECT_EQ(p->topology.dies, 2);
  EXPECT_EQ(p->topology.cores, 4);
  EXPECT_EQ(p->topology.threads, 2);
}

TEST(PlacementL3Aligned, HousekeepingAndLeftoverEmulator) {
  auto host = four_l3_host();
  auto l = layout(2, 4, 1);
  auto p = plan_placement(l, host);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->emulator_cpus.to_string(), "8-15");
  ASSERT_FALSE(p->notes.empty());
  EXPECT_NE(p->notes[0].find("CPUs left over: 8-15"), std::string::npos);
  l.housekeeping_cpus = CpuList{0};
  p = plan_placement(l, host);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->emulator_cpus.to_string(), "0");
  EXPECT_EQ(p->groups[0].host_cpus.to_string(), "4-7") << "L3 0 lost CPU 0";
  l.housekeeping_cpus.reset();
  l.l3_groups = 4;
  l.iothreads = 2;
  p = plan_placement(l, host);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->emulator_cpus.to_string(), "0-15");
  EXPECT_EQ(p->iothread_cpus, p->emulator_cpus);
  bool warned = false;
  for (const auto& w : p->warnings) warned |= w.find("share the guest's CPUs") != std::string::npos;
  EXPECT_TRUE(warned);
}

TEST(PlacementExposure, TopologyPerExposure) {
  auto host = make_synthetic_host({1, 4, 4, 2});
  struct Want {
    Exposure e;
    GuestTopology t;
  };
  for (auto w : {Want{Exposure::kFlat, {1, 1, 6, 2}}, Want{Exposure::kSockets, {2, 1, 3, 2}},
                 Want{Exposure::kDies, {1, 2, 3, 2}}, Want{Exposure::kNuma, {1, 1, 6, 2}}}) {
    auto p = plan_placement(layout(2, 3, 2, w.e), host);
    ASSERT_TRUE(p) << message(p);
    EXPECT_EQ(p->topology.sockets, w.t.sockets) << to_string(w.e);
    EXPECT_EQ(p->topology.dies, w.t.dies) << to_string(w.e);
    EXPECT_EQ(p->topology.cores, w.t.cores) << to_string(w.e);
    EXPECT_EQ(p->topology.threads, w.t.threads) << to_string(w.e);
  }
}

TEST(PlacementPolicies, CompactFillsInOrderScatterSpreads) {
  auto host = four_l3_host();
  auto l = layout(2, 3, 1);
  l.policy = PlacementPolicy::kCompact;
  auto p = plan_placement(l, host);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->groups[0].host_cpus.to_string(), "0-2");
  EXPECT_EQ(p->groups[1].host_cpus.to_string(), "3-5");
  EXPECT_EQ(p->groups[1].host_l3, -1) << "compact lets group 1 straddle L3 0 and 1";
  l.policy = PlacementPolicy::kScatter;
  p = plan_placement(l, host);
  ASSERT_TRUE(p);
  for (const auto& g : p->groups) {
    std::set<int> l3s;
    for (int c : g.host_cpus) l3s.insert(host.cpu(c)->l3);
    EXPECT_EQ(l3s.size(), 3u) << "scatter puts each group's 3 cores on 3 L3 domains";
  }
}

TEST(PlacementPolicies, UnpinnedFloatsAndWarnsOnOvercommit) {
  auto host = make_synthetic_host({1, 1, 2, 1});
  auto l = layout(2, 4, 2);
  l.policy = PlacementPolicy::kUnpinned;
  auto p = plan_placement(l, host);
  ASSERT_TRUE(p) << message(p);
  EXPECT_FALSE(p->pinned);
  ASSERT_EQ(p->vcpus.size(), 16u);
  for (const auto& v : p->vcpus) EXPECT_EQ(v.host_cpus.to_string(), "0-1");
  ASSERT_FALSE(p->warnings.empty());
  EXPECT_NE(p->warnings[0].find("16 vCPUs float over 2 host CPUs"), std::string::npos);
  EXPECT_TRUE(p->memory_nodes.empty());
  EXPECT_EQ(p->topology.dies, 2);
}

TEST(PlacementPolicies, ExplicitHonoursListAndChecksIt) {
  auto host = four_l3_host();
  auto l = layout(1, 2, 1);
  l.policy = PlacementPolicy::kExplicit;
  l.explicit_cpus = {CpuList{5}, CpuList{9}};
  auto p = plan_placement(l, host);
  ASSERT_TRUE(p) << message(p);
  EXPECT_EQ(p->vcpus[1].host_cpus.to_string(), "9");
  EXPECT_EQ(p->groups[0].host_l3, -1);
  l.host_cpus = CpuList::range(0, 7);
  auto r = plan_placement(l, host);
  ASSERT_FALSE(r);
  EXPECT_NE(message(r).find("explicit: vCPU 1 (9) is outside host_cpus 0-7"), std::string::npos);
}

TEST(PlacementJson, IssueShape) {
  auto host = make_synthetic_host({1, 4, 4, 2});
  auto l = layout(2, 4, 2);
  l.housekeeping_cpus = CpuList{0, 16};
  auto p = plan_placement(l, host);
  ASSERT_TRUE(p) << message(p);
  auto j = plan_to_json(*p);
  ASSERT_EQ(j["vcpus"].size(), 16u);
  EXPECT_EQ(j["vcpus"][0]["vcpu"], 0);
  EXPECT_TRUE(j["vcpus"][0]["host_cpus"].is_string());
  EXPECT_EQ(j["vcpus"][1]["thread"], 1);
  EXPECT_EQ(j["groups"][0]["host_l3"], 1) << "L3 0 lost core 0 to housekeeping";
  EXPECT_EQ(j["groups"][0]["host_cpus"], "4-7,20-23");
  EXPECT_EQ(j["topology"]["dies"], 2);
  EXPECT_EQ(j["topology"]["cores"], 4);
  EXPECT_EQ(j["emulator_cpus"], "0,16");
  EXPECT_TRUE(j["warnings"].is_array());
}

}  // namespace
}  // namespace topolab
