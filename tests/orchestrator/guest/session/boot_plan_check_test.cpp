// The session boots the plan it is given (issue 28): a plan that was not announced for the
// host's accelerator decision is refused before anything is created, never re-planned or
// probed in the session.
#include <gtest/gtest.h>

#include "orchestrator/guest/session/guest_session.hpp"
#include "orchestrator/planning/placement/synthetic_host.hpp"

namespace topolab {
namespace {

BootRequest request_for(std::optional<Accelerator> planned, Accelerator decided) {
  Layout l;
  l.name = "t";
  l.l3_groups = 1;
  l.cores_per_group = 2;
  SyntheticHostSpec spec;
  spec.cores_per_l3 = 4;
  auto plan = plan::plan_guest(l, {make_synthetic_host(spec), std::nullopt, planned});
  EXPECT_TRUE(plan.ok()) << plan.error().message;
  BootRequest req;
  req.plan = *plan;
  req.accel.accel = decided;
  req.run_dir = std::filesystem::path(::testing::TempDir()) / "boot-plan-check-never-made";
  return req;
}

TEST(BootPlanCheck, APlanWithoutAnnouncedTopologyOrForAnotherAcceleratorIsRefused) {
  for (auto req : {request_for(std::nullopt, Accelerator::kTcg),
                   request_for(Accelerator::kKvm, Accelerator::kTcg)}) {
    auto s = GuestSession::boot(req);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().kind, ErrorKind::internal) << s.error().message;
    EXPECT_NE(s.error().message.find("not announced for the host's accelerator"), std::string::npos)
        << s.error().message;
    EXPECT_FALSE(std::filesystem::exists(req.run_dir)) << "refused before the run folder";
  }
}

}  // namespace
}  // namespace topolab
