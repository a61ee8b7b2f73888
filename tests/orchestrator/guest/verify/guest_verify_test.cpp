// verify_guest, the one verification `boot` and experiments use: a guest that reports exactly
// what was announced matches; one that reports what another CPU model would show does not, and
// the mismatch names the level.
#include "orchestrator/guest/verify/guest_verify.hpp"

#include <gtest/gtest.h>

#include "orchestrator/planning/domain/intended_topology.hpp"
#include "orchestrator/planning/placement/synthetic_host.hpp"

namespace topolab {
namespace {

AnnouncedTopology announced_numa(Accelerator accel) {
  auto l = *load_layout_or_preset("opteron-6140");  // numa exposure, 2 cells x 4 cores
  auto plan = plan_placement(l, make_synthetic_host({2, 4, 4, 2, false, true, 16384}));
  EXPECT_TRUE(plan);
  auto a = announce_topology(l, *plan, accel, "AuthenticAMD");
  EXPECT_TRUE(a);
  return *a;
}

TEST(GuestVerify, AGuestSeeingWhatWasAnnouncedMatches) {
  const auto a = announced_numa(Accelerator::kKvm);
  auto v = verify_guest(a, intended_guest_topology(a));
  EXPECT_TRUE(v.match());
  EXPECT_EQ(v.cpu_model, "host-passthrough");
  EXPECT_EQ(v.cpu_model_reason, a.cpu_model.reason);
  EXPECT_EQ(mismatches_to_json(v.mismatches), nlohmann::json::array());
}

TEST(GuestVerify, TheExpectationFollowsTheAnnouncedModel) {
  // Under TCG the announced model is Skylake-Server: one L3 across the cells. A guest showing
  // the AMD-style per-cell L3 is a mismatch at the L3 level only.
  const auto tcg = announced_numa(Accelerator::kTcg);
  const auto kvm = announced_numa(Accelerator::kKvm);
  auto v = verify_guest(tcg, intended_guest_topology(kvm));
  EXPECT_EQ(v.cpu_model, "Skylake-Server");
  ASSERT_EQ(v.mismatches.size(), 1u);
  EXPECT_EQ(v.mismatches[0].level, "l3_domains");
  EXPECT_EQ(v.mismatches[0].intended, "0-7");
  EXPECT_EQ(v.mismatches[0].seen, "0-3 | 4-7");
  auto j = mismatches_to_json(v.mismatches);
  EXPECT_EQ(j[0]["level"], "l3_domains");
}

}  // namespace
}  // namespace topolab
