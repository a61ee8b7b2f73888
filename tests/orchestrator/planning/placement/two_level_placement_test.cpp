// Two-level layouts placed on a 2990WX (hand-written sysfs tree: 4 nodes x 2 L3, nodes 1 and 3
// memoryless) and on the real 2x EPYC 7451 capture (8 nodes x 2 L3 of 3 cores): each guest node
// on one host node of its own, each group on one host L3 inside it; the cells, memory and
// distances the guest is told.
#include <gtest/gtest.h>

#include <set>

#include "host/sysfs_reader.hpp"
#include "orchestrator/planning/placement/announced_topology.hpp"
#include "orchestrator/planning/placement/placement_plan.hpp"
#include "tests/orchestrator/planning/placement/fixture_hosts.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/tr2990wx_sysfs.hpp"

namespace topolab {
namespace {

const HostTopology& tr2990wx() {
  static const HostTopology host = [] {
    testing::TempDir dir("topolab-2990wx");
    auto h = read_sysfs_topology(testing::write_tr2990wx_sysfs(dir.path()));
    EXPECT_TRUE(h) << h.error().message;
    return h ? *h : HostTopology{};
  }();
  return host;
}

const HostTopology* epyc7451() {
  for (const auto& h : testing::fixture_hosts())
    if (h.name == "x86_64-epyc_7451") return &h.host;
  return nullptr;
}

TEST(TwoLevelHost, The2990wxTreeReadsMemorylessNodesAndDistances) {
  const auto& h = tr2990wx();
  ASSERT_EQ(h.numa_nodes.size(), 4u);
  EXPECT_EQ(h.l3_domains.size(), 8u);
  EXPECT_FALSE(h.numa_nodes[0].memoryless);
  EXPECT_TRUE(h.numa_nodes[1].memoryless);
  EXPECT_TRUE(h.numa_nodes[3].memoryless);
  EXPECT_EQ(h.numa_nodes[2].distances, (std::vector<int>{16, 16, 10, 16}));
}

// Every group on one host L3 inside its node's host node; distinct host nodes per guest node.
void expect_nodes_on_host_nodes(const Layout& l, const PlacementPlan& p, const HostTopology& h) {
  ASSERT_EQ(static_cast<int>(p.nodes.size()), l.numa_nodes);
  std::set<int> host_nodes;
  for (const auto& n : p.nodes) {
    EXPECT_GE(n.host_node, 0) << "guest node " << n.node;
    host_nodes.insert(n.host_node);
    ASSERT_EQ(static_cast<int>(n.groups.size()), l.groups_per_node());
    for (int g : n.groups) {
      const auto& gp = p.groups[static_cast<std::size_t>(g)];
      EXPECT_GE(gp.host_l3, 0) << "group " << g;
      EXPECT_EQ(gp.host_node, n.host_node) << "group " << g;
      EXPECT_EQ(g / l.groups_per_node(), n.node);
    }
  }
  EXPECT_EQ(host_nodes.size(), p.nodes.size());
  (void)h;
}

TEST(TwoLevelPlacement, Threadripper2990wxOnA2990wx) {
  auto l = *load_layout_or_preset("threadripper-2990wx");
  auto p = plan_placement(l, tr2990wx());
  ASSERT_TRUE(p) << p.error().message;
  expect_nodes_on_host_nodes(l, *p, tr2990wx());
  // The memory nodes land on the host nodes with memory, the memoryless ones on memoryless.
  EXPECT_EQ(p->nodes[0].host_node, 0);
  EXPECT_EQ(p->nodes[1].host_node, 1);
  EXPECT_EQ(p->nodes[2].host_node, 2);
  EXPECT_EQ(p->nodes[3].host_node, 3);
  EXPECT_EQ(p->node_distances[0], (std::vector<int>{10, 16, 16, 16}));
  auto j = plan_to_json(*p);
  ASSERT_EQ(j.at("nodes").size(), 4u);
  EXPECT_EQ(j.at("nodes")[3].at("host_node"), 3);
  EXPECT_EQ(j.at("nodes")[3].at("groups").dump(), "[6,7]");

  auto a = announce_topology(l, *p, Accelerator::kTcg, "AuthenticAMD");
  ASSERT_TRUE(a) << a.error().message;
  EXPECT_EQ(a->topology().dies, 8);
  ASSERT_EQ(a->cells.size(), 4u);
  EXPECT_EQ(a->cells[0].memory_kib, 2048u * 1024);
  EXPECT_EQ(a->cells[1].memory_kib, 0u);
  EXPECT_EQ(a->cells[2].memory_kib, 2048u * 1024);
  EXPECT_EQ(a->cells[3].memory_kib, 0u);
  EXPECT_EQ(a->cells[1].cpus.to_string(), "16-31");
  EXPECT_EQ(a->machine, kMemorylessMachine);
  std::set<int> l3_in_cell1;
  for (const auto& v : a->vcpus)
    if (v.cell == 1) l3_in_cell1.insert(v.l3);
  EXPECT_EQ(l3_in_cell1, (std::set<int>{2, 3}));
}

TEST(TwoLevelPlacement, MemoryNodesNeedHostNodesWithMemory) {
  // 1950X local: both guest nodes have memory, so they take the 2990WX's nodes 0 and 2.
  auto l = *load_layout_or_preset("threadripper-1950x-local");
  auto p = plan_placement(l, tr2990wx());
  ASSERT_TRUE(p) << p.error().message;
  expect_nodes_on_host_nodes(l, *p, tr2990wx());
  EXPECT_EQ(p->nodes[0].host_node, 0);
  EXPECT_EQ(p->nodes[1].host_node, 2);
  EXPECT_EQ(p->node_distances, (std::vector<std::vector<int>>{{10, 16}, {16, 10}}));
  auto a = announce_topology(l, *p, Accelerator::kTcg, "AuthenticAMD");
  ASSERT_TRUE(a);
  EXPECT_TRUE(a->machine.empty());
  EXPECT_EQ(a->cells[1].distances, (std::vector<int>{16, 10}));  // copied from the host
}

TEST(TwoLevelPlacement, Epyc7451OnTheDualSocketCapture) {
  const HostTopology* h = epyc7451();
  ASSERT_NE(h, nullptr);
  auto l = *load_layout_or_preset("epyc-7451");
  auto p = plan_placement(l, *h);
  ASSERT_TRUE(p) << p.error().message;
  expect_nodes_on_host_nodes(l, *p, *h);
  // The 2990WX's 4-core CCX do not fit the 7451's 3-core L3s: refused, nearest feasible named.
  auto tr = *load_layout_or_preset("threadripper-2990wx");
  auto refused = plan_placement(tr, *h);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("nearest feasible"), std::string::npos)
      << refused.error().message;
}

TEST(TwoLevelPlacement, SaysWhenNoHostNodeHoldsAGuestNode) {
  // One L3 per host node: no host node holds a guest node's two groups.
  auto host = make_synthetic_host({2, 4, 4, 2, false, true, 16384});
  auto l = *load_layout_or_preset("threadripper-1950x-local");
  auto p = plan_placement(l, host);
  ASSERT_TRUE(p) << p.error().message;
  bool said = false;
  for (const auto& n : p->notes) said = said || n.find("no host NUMA node of its own") == 0;
  EXPECT_TRUE(said);
  EXPECT_EQ(p->nodes[0].host_node, -1);
  EXPECT_TRUE(p->node_distances.empty());
}

TEST(TwoLevelPlacement, MemorylessWithHugepagesIsRefusedWithTheReason) {
  auto l = *load_layout_or_preset("threadripper-2990wx");
  l.hugepage_kib = 2048;
  auto p = plan_placement(l, tr2990wx());
  ASSERT_TRUE(p) << p.error().message;
  auto a = announce_topology(l, *p, Accelerator::kTcg, "AuthenticAMD");
  ASSERT_FALSE(a);
  EXPECT_NE(a.error().message.find("QEMU 7.2 refuses a backend of size 0"), std::string::npos);
}

}  // namespace
}  // namespace topolab
