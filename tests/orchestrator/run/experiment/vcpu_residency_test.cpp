// Where the vCPU threads ran (issue 26 item 2): the counting function over hand-made tick
// sequences, on a hand-made host of 4 CPUs in 2 L3 domains (0-1: L3 0, 2-3: L3 1), and the
// stored form read back through the result validator.
#include "orchestrator/run/experiment/vcpu_residency.hpp"

#include <gtest/gtest.h>

#include "protocol/benchmark_result.hpp"

namespace topolab::experiment {
namespace {

HostTopology two_l3_host() {
  HostTopology h;
  for (int id = 0; id < 4; ++id) {
    CpuInfo c;
    c.id = id;
    c.core = id;
    c.l3 = id / 2;
    c.siblings = CpuList{id};
    h.cpus.push_back(c);
  }
  h.l3_domains = {{0, CpuList{0, 1}, 0}, {1, CpuList{2, 3}, 0}};
  return h;
}

VcpuTicks ticks(std::vector<std::vector<int>> t) { return VcpuTicks{std::move(t), 50, 12.5}; }

TEST(VcpuResidency, CountsChangesCrossingsAndSharesPerVcpu) {
  // vCPU 0: 0 0 1 2 2 -> 2 changes (0->1, 1->2), 1 crossing (L3 0 -> 1), 3/5 on L3 0.
  // vCPU 1: 3 3 3 3 3 -> nothing moved, all on L3 1.
  auto t = count_residency(ticks({{0, 3}, {0, 3}, {1, 3}, {2, 3}, {2, 3}}), two_l3_host(),
                           {false, true});
  ASSERT_TRUE(t.sampled);
  EXPECT_EQ(t.samples, 5u);
  EXPECT_EQ(t.interval_ms, 50);
  EXPECT_DOUBLE_EQ(t.read_us_median, 12.5);
  ASSERT_EQ(t.vcpus.size(), 2u);
  const auto& v0 = t.vcpus[0];
  EXPECT_EQ(v0.vcpu, 0);
  EXPECT_FALSE(v0.pinned);
  EXPECT_EQ(v0.samples, 5u);
  EXPECT_EQ(v0.vcpu_host_cpu_changes, 2u);
  EXPECT_EQ(v0.vcpu_host_l3_crossings, 1u);
  ASSERT_EQ(v0.l3_share.size(), 2u);
  EXPECT_DOUBLE_EQ(v0.l3_share.at(0), 0.6);
  EXPECT_DOUBLE_EQ(v0.l3_share.at(1), 0.4);
  const auto& v1 = t.vcpus[1];
  EXPECT_TRUE(v1.pinned);
  EXPECT_EQ(v1.vcpu_host_cpu_changes, 0u);
  EXPECT_EQ(v1.vcpu_host_l3_crossings, 0u);
  EXPECT_EQ(v1.l3_share, (std::map<int, double>{{1, 1.0}}));
}

TEST(VcpuResidency, BackAndForthCountsEveryChange) {
  // 0 2 0 2: three changes, each across L3; half the samples on each domain.
  auto t = count_residency(ticks({{0}, {2}, {0}, {2}}), two_l3_host(), {});
  ASSERT_EQ(t.vcpus.size(), 1u);
  EXPECT_EQ(t.vcpus[0].vcpu_host_cpu_changes, 3u);
  EXPECT_EQ(t.vcpus[0].vcpu_host_l3_crossings, 3u);
  EXPECT_DOUBLE_EQ(t.vcpus[0].l3_share.at(0), 0.5);
  EXPECT_DOUBLE_EQ(t.vcpus[0].l3_share.at(1), 0.5);
}

TEST(VcpuResidency, AVcpuNoTickReadHasNoSamplesAndNoShares) {
  // vCPU 1 unread at every tick (-1 or missing); vCPU 2 only known from the plan.
  auto t = count_residency(ticks({{0, -1}, {0}, {1, -1}}), two_l3_host(), {true, false, true});
  ASSERT_EQ(t.vcpus.size(), 3u);
  EXPECT_EQ(t.vcpus[0].samples, 3u);
  EXPECT_EQ(t.vcpus[0].vcpu_host_cpu_changes, 1u);
  EXPECT_EQ(t.vcpus[0].vcpu_host_l3_crossings, 0u);
  for (int v : {1, 2}) {
    EXPECT_EQ(t.vcpus[v].samples, 0u);
    EXPECT_EQ(t.vcpus[v].vcpu_host_cpu_changes, 0u);
    EXPECT_TRUE(t.vcpus[v].l3_share.empty());
  }
  EXPECT_TRUE(t.vcpus[2].pinned);
  // No ticks at all: sampled, nothing counted.
  auto none = count_residency(ticks({}), two_l3_host(), {false});
  EXPECT_EQ(none.samples, 0u);
  ASSERT_EQ(none.vcpus.size(), 1u);
  EXPECT_EQ(none.vcpus[0].samples, 0u);
}

TEST(VcpuResidency, ACpuOutsideTheHostTopologyIsMarkedNeverACrossingOrShare) {
  // 0 -> 99 (not in the topology) -> 2: two changes; the crossing 0 -> 2 is L3 0 -> 1 (one);
  // 99 is counted unknown and the shares leave its third out.
  auto t = count_residency(ticks({{0}, {99}, {2}, {-7}}), two_l3_host(), {});
  const auto& v = t.vcpus.at(0);
  EXPECT_EQ(v.samples, 3u);
  EXPECT_EQ(v.unknown_cpu_samples, 1u);
  EXPECT_EQ(v.vcpu_host_cpu_changes, 2u);
  EXPECT_EQ(v.vcpu_host_l3_crossings, 1u);
  EXPECT_NEAR(v.l3_share.at(0) + v.l3_share.at(1), 2.0 / 3.0, 1e-12);
  // 0 -> 99 -> 1: the same L3 on both sides of the unknown CPU: changes, no crossing.
  auto same = count_residency(ticks({{0}, {99}, {1}}), two_l3_host(), {});
  EXPECT_EQ(same.vcpus[0].vcpu_host_cpu_changes, 2u);
  EXPECT_EQ(same.vcpus[0].vcpu_host_l3_crossings, 0u);
  // A host whose CPU names an L3 index it does not have: unknown too.
  auto broken = two_l3_host();
  broken.l3_domains.resize(1);
  auto b = count_residency(ticks({{2}, {3}}), broken, {});
  EXPECT_EQ(b.vcpus[0].unknown_cpu_samples, 2u);
  EXPECT_TRUE(b.vcpus[0].l3_share.empty());
}

TEST(VcpuResidency, HugeInputIsBoundedAndStaysValid) {
  // More ticks and vCPUs than stored: counts stop at the bounds, and what is stored validates.
  VcpuTicks many;
  many.interval_ms = 50;
  many.read_us_median = 1e300;  // a bogus cost is clamped
  many.ticks.assign(protocol::kMaxHostSamples + 10, std::vector<int>{0});
  for (std::size_t k = 0; k < many.ticks.size(); k += 2) many.ticks[k][0] = 2;
  many.ticks[0].assign(protocol::kMaxHostVcpus + 5, 1);
  auto t = count_residency(many, two_l3_host(), {});
  EXPECT_EQ(t.samples, protocol::kMaxHostSamples);
  EXPECT_EQ(t.vcpus.size(), protocol::kMaxHostVcpus);
  EXPECT_EQ(t.vcpus[0].samples, protocol::kMaxHostSamples);
  EXPECT_EQ(t.vcpus[0].vcpu_host_cpu_changes, protocol::kMaxHostSamples - 1);
  EXPECT_LE(t.read_us_median, 1e7);
  auto back = protocol::parse_host_telemetry(protocol::host_telemetry_to_json(t));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(protocol::host_telemetry_to_json(*back), protocol::host_telemetry_to_json(t));
}

}  // namespace
}  // namespace topolab::experiment
