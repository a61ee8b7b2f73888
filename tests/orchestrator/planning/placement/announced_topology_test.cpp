// The announced topology: what each exposure means (decided in exposure.cpp only), the vCPU
// numbering both ways, and announce_topology's per-vCPU and per-cell facts.
#include "orchestrator/planning/placement/announced_topology.hpp"

#include <gtest/gtest.h>

#include <numeric>

#include "orchestrator/planning/placement/exposure.hpp"
#include "orchestrator/planning/placement/synthetic_host.hpp"
#include "tests/orchestrator/planning/placement/test_layout.hpp"

namespace topolab {
namespace {

Layout layout_of(Exposure e, int groups, int cores, int threads, std::uint64_t memory_mib = 2048) {
  return testing::test_layout(groups, cores, threads, e, memory_mib);
}

HostTopology host() { return make_synthetic_host({2, 2, 4, 2, false, true, 16384}); }

TEST(ExposureMeaning, EachExposureAnnouncesItsShape) {
  auto flat = exposure_meaning(layout_of(Exposure::kFlat, 2, 3, 2));
  EXPECT_EQ(flat.topology.sockets, 1);
  EXPECT_EQ(flat.topology.dies, 1);
  EXPECT_EQ(flat.topology.cores, 6);
  EXPECT_EQ(flat.topology.threads, 2);
  EXPECT_FALSE(flat.numa_cells());
  EXPECT_EQ(flat.l3, L3Sharing::kWholeGuest);

  auto sockets = exposure_meaning(layout_of(Exposure::kSockets, 2, 3, 2));
  EXPECT_EQ(sockets.topology.sockets, 2);
  EXPECT_EQ(sockets.topology.cores, 3);
  EXPECT_EQ(sockets.l3, L3Sharing::kPerGroup);

  auto dies = exposure_meaning(layout_of(Exposure::kDies, 4, 2, 1));
  EXPECT_EQ(dies.topology.sockets, 1);
  EXPECT_EQ(dies.topology.dies, 4);
  EXPECT_EQ(dies.topology.cores, 2);
  EXPECT_FALSE(dies.numa_cells());

  auto numa = exposure_meaning(layout_of(Exposure::kNuma, 2, 4, 1));
  EXPECT_EQ(numa.topology.cores, 8);
  EXPECT_EQ(numa.topology.dies, 1);
  EXPECT_TRUE(numa.numa_cells());
  EXPECT_EQ(numa.l3, L3Sharing::kPerCellOnAmdPerSocketOnIntel);
  EXPECT_EQ(guest_topology_for(layout_of(Exposure::kNuma, 2, 4, 1)).cores, 8);
}

TEST(VcpuSlot, NumberingIsQemusAndInvertible) {
  auto l = layout_of(Exposure::kFlat, 3, 4, 2);
  auto s = vcpu_slot(l, 13);  // group 1 (8 vCPUs a group), vCPU 5 of it: core 2, thread 1
  EXPECT_EQ(s.group, 1);
  EXPECT_EQ(s.core, 2);
  EXPECT_EQ(s.thread, 1);
  for (int v = 0; v < l.vcpu_count(); ++v) EXPECT_EQ(vcpu_at(l, vcpu_slot(l, v)), v);
}

TEST(AnnounceTopology, NumaCellsSplitMemoryAndFollowTheGroups) {
  auto l = layout_of(Exposure::kNuma, 3, 2, 2, 3000);
  auto plan = plan_placement(l, host());
  ASSERT_TRUE(plan) << plan.error().message;
  auto a = announce_topology(l, *plan, Accelerator::kKvm, "AuthenticAMD");
  ASSERT_TRUE(a) << a.error().message;
  ASSERT_EQ(a->vcpus.size(), 12u);
  ASSERT_EQ(a->cells.size(), 3u);
  EXPECT_EQ(a->cells[1].cpus.to_string(), "4-7");
  std::uint64_t total = 0;
  for (const auto& c : a->cells) total += c.memory_kib;
  EXPECT_EQ(total, 3000u * 1024);
  EXPECT_EQ(a->cells[0].memory_kib, 1000u * 1024);
  for (std::size_t g = 0; g < a->cells.size(); ++g) {
    EXPECT_EQ(a->cells[g].host_node, plan->groups[g].host_node);
  }
  EXPECT_EQ(a->vcpus[5].cell, 1);
  EXPECT_EQ(a->vcpus[5].core, 2);
  EXPECT_EQ(a->vcpus[5].thread, 1);
  EXPECT_EQ(a->vcpus[5].l3, 1) << "AMD-style host-passthrough: L3 per cell";
  EXPECT_EQ(a->cpu_model.mode, "host-passthrough");

  auto tcg = announce_topology(l, *plan, Accelerator::kTcg, "AuthenticAMD");
  ASSERT_TRUE(tcg);
  EXPECT_EQ(tcg->cpu_model.model, "Skylake-Server");
  EXPECT_EQ(tcg->vcpus[5].l3, 0) << "Intel-style: one L3 across the socket's cells";
}

TEST(AnnounceTopology, DiesAndSocketsGiveGuestWideIds) {
  auto l = layout_of(Exposure::kDies, 2, 2, 2);
  auto plan = plan_placement(l, host());
  ASSERT_TRUE(plan);
  auto a = announce_topology(l, *plan, Accelerator::kTcg, "");
  ASSERT_TRUE(a);
  EXPECT_TRUE(a->cells.empty());
  EXPECT_EQ(a->vcpus[6].package, 0);
  EXPECT_EQ(a->vcpus[6].die, 1);
  EXPECT_EQ(a->vcpus[6].core, 3);
  EXPECT_EQ(a->vcpus[6].l3, 1);
  EXPECT_EQ(a->vcpus[6].cell, 0);

  l.expose = Exposure::kSockets;
  plan = plan_placement(l, host());
  ASSERT_TRUE(plan);
  a = announce_topology(l, *plan, Accelerator::kTcg, "");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->vcpus[6].package, 1);
  EXPECT_EQ(a->vcpus[6].die, 1);
  EXPECT_EQ(a->topology().sockets, 2);
}

TEST(AnnounceTopology, RefusesAPlanOfAnotherLayoutAndUnsplittableHugepages) {
  auto l = layout_of(Exposure::kNuma, 2, 2, 1, 3072);
  auto plan = plan_placement(l, host());
  ASSERT_TRUE(plan);
  auto other = l;
  other.cores_per_group = 3;
  auto wrong = announce_topology(other, *plan, Accelerator::kTcg, "");
  ASSERT_FALSE(wrong);
  EXPECT_NE(wrong.error().message.find("expected a plan made for this layout"), std::string::npos);

  l.hugepage_kib = 1048576;  // 3 GiB in 2 cells of whole 1 GiB pages: fine (2 + 1)
  auto a = announce_topology(l, *plan, Accelerator::kTcg, "");
  ASSERT_TRUE(a) << a.error().message;
  EXPECT_EQ(a->cells[0].memory_kib, 2u * 1048576);
  EXPECT_EQ(a->cells[1].memory_kib, 1u * 1048576);
  auto split = split_cell_memory(*a, l, 1536 * 1024);  // 1.5 GiB: not whole pages
  ASSERT_FALSE(split);
  EXPECT_NE(split.error().message.find("cannot be split into 2 NUMA cells"), std::string::npos);
}

}  // namespace
}  // namespace topolab
