// The planning stage (issue 28): plan_guest checks the vCPU limit, then places the layout, then
// (for a boot) announces it for the host's accelerator; what it stores (guest_plan_to_json) is
// the placement's own JSON plus, for a boot, what was announced.
#include "orchestrator/planning/plan/guest_plan.hpp"

#include <gtest/gtest.h>

#include "orchestrator/planning/placement/synthetic_host.hpp"

namespace topolab::plan {
namespace {

HostTopology host_of(int l3, int cores, int threads) {
  SyntheticHostSpec s;
  s.l3_per_package = l3;
  s.cores_per_l3 = cores;
  s.threads = threads;
  return make_synthetic_host(s);
}

Layout layout_of(int groups, int cores, int threads) {
  Layout l;
  l.name = "t";
  l.l3_groups = groups;
  l.cores_per_group = cores;
  l.threads_per_core = threads;
  return l;
}

TEST(GuestPlan, PlacesTheLayoutAsThePlannerDoes) {
  const auto host = host_of(2, 4, 2);
  const auto l = layout_of(2, 2, 2);
  auto plan = plan_guest(l, {host, VcpuLimit{}, std::nullopt});
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_FALSE(plan->announced) << "no accelerator given: not a plan for a boot";
  EXPECT_EQ(plan->layout.vcpu_count(), 8);
  auto direct = plan_placement(l, host);
  ASSERT_TRUE(direct.ok());
  EXPECT_EQ(guest_plan_to_json(*plan), plan_to_json(*direct));
  ASSERT_EQ(plan->placement.vcpus.size(), 8u);
  EXPECT_NE(plan->placement.groups[0].host_l3, plan->placement.groups[1].host_l3)
      << "l3-aligned: one host L3 per group";
}

TEST(GuestPlan, TheVcpuLimitIsCheckedFirstAndNamesItsSource) {
  const auto l = layout_of(4, 8, 2);  // 64 vCPUs
  auto refused =
      plan_guest(l, {host_of(1, 2, 1), VcpuLimit{16, "the test's machine"}, std::nullopt});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("64 vCPUs cannot boot: at most 16 (the test's machine)"),
            std::string::npos)
      << refused.error().message;
  // Without a limit (the doctor's hook) only the placement decides: 64 vCPUs on 2 CPUs do not
  // fit, and the refusal names the layout.
  auto unfit = plan_guest(l, {host_of(1, 2, 1), std::nullopt, std::nullopt});
  ASSERT_FALSE(unfit.ok());
  EXPECT_EQ(unfit.error().message.rfind("layout t: ", 0), 0u) << unfit.error().message;
}

// For a boot the plan also carries what the guest is told, announced exactly as
// announce_topology does for the host's accelerator and vendor, and stores its summary.
TEST(GuestPlan, ABootPlanIsAnnouncedForTheHostsAccelerator) {
  auto host = host_of(2, 4, 2);
  host.vendor = "AuthenticAMD";
  const auto l = layout_of(2, 2, 2);
  for (auto accel : kAccelerators) {
    auto plan = plan_guest(l, {host, VcpuLimit{}, accel});
    ASSERT_TRUE(plan.ok()) << plan.error().message;
    ASSERT_TRUE(plan->announced);
    auto direct = announce_topology(l, plan->placement, accel, host.vendor);
    ASSERT_TRUE(direct.ok());
    EXPECT_EQ(plan->announced->accel, accel);
    EXPECT_EQ(plan->announced->cpu_model.model, direct->cpu_model.model);
    EXPECT_EQ(plan->announced->cpu_model.reason, direct->cpu_model.reason);
    EXPECT_EQ(plan->announced->topology().dies, direct->topology().dies);
    const auto j = guest_plan_to_json(*plan);
    EXPECT_EQ(j["announced"]["accelerator"], to_string(accel)) << j.dump();
    EXPECT_EQ(j["announced"]["cpu_model"]["model"], direct->cpu_model.model) << j.dump();
    // The placement part is the one the report's pictures read, unchanged.
    auto placement_only = j;
    placement_only.erase("announced");
    EXPECT_EQ(placement_only, plan_to_json(plan->placement));
  }
}

// `topolab xml` announces a plan itself (its base may name the CPU model after planning):
// announce_plan gives what plan_guest gives for the same accelerator. A booted plan stores the
// domain XML it was defined with beside the rest; an unbooted one has no such key.
TEST(GuestPlan, AnnouncingAPlanLaterIsTheSameAsPlanningForTheAccelerator) {
  auto host = host_of(2, 4, 2);
  host.vendor = "GenuineIntel";
  const auto l = layout_of(2, 2, 2);
  auto booted = plan_guest(l, {host, VcpuLimit{}, Accelerator::kTcg});
  auto later = plan_guest(l, {host, VcpuLimit{}, std::nullopt});
  ASSERT_TRUE(booted.ok() && later.ok());
  EXPECT_FALSE(later->announced);
  ASSERT_TRUE(announce_plan(*later, Accelerator::kTcg, host.vendor).ok());
  EXPECT_EQ(guest_plan_to_json(*later), guest_plan_to_json(*booted));
  EXPECT_FALSE(guest_plan_to_json(*booted).contains("domain_xml"));
  const auto stored = guest_plan_to_json(*booted, "<domain type='qemu'/>");
  EXPECT_EQ(stored["domain_xml"], "<domain type='qemu'/>");
  auto rest = stored;
  rest.erase("domain_xml");
  EXPECT_EQ(rest, guest_plan_to_json(*booted));
}

// What only the accelerator rules out is refused at plan time, before any boot, naming the
// layout: QEMU cannot start host-passthrough under TCG.
TEST(GuestPlan, HostPassthroughUnderTcgIsRefusedWhenPlanned) {
  auto l = layout_of(1, 2, 1);
  l.cpu_model = "host-passthrough";
  auto refused = plan_guest(l, {host_of(1, 4, 1), VcpuLimit{}, Accelerator::kTcg});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message.rfind("layout t: cpu.model host-passthrough", 0), 0u)
      << refused.error().message;
  EXPECT_TRUE(plan_guest(l, {host_of(1, 4, 1), VcpuLimit{}, Accelerator::kKvm}).ok());
}

}  // namespace
}  // namespace topolab::plan
