#include "orchestrator/planning/plan/guest_plan.hpp"

namespace topolab::plan {

Result<GuestPlan> plan_guest(Layout layout, const HostFacts& facts) {
  if (facts.vcpu_limit) TL_TRY(check_vcpu_limit(layout, *facts.vcpu_limit));
  // The limit's refusal names the layout itself; the planner's says what did not fit where.
  TL_ASSIGN_CTX(auto placement, plan_placement(layout, facts.host), "layout " + layout.name);
  return GuestPlan{std::move(layout), std::move(placement)};
}

nlohmann::json guest_plan_to_json(const GuestPlan& plan) { return plan_to_json(plan.placement); }

}  // namespace topolab::plan
