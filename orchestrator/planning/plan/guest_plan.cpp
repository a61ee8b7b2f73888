#include "orchestrator/planning/plan/guest_plan.hpp"

namespace topolab::plan {
namespace {

nlohmann::json announced_to_json(const AnnouncedTopology& a) {
  nlohmann::json cells = nlohmann::json::array();
  for (const auto& c : a.cells)
    cells.push_back({{"id", c.id},
                     {"cpus", c.cpus.to_string()},
                     {"memory_kib", c.memory_kib},
                     {"host_node", c.host_node}});
  return {{"accelerator", to_string(a.accel)},
          {"cpu_model", cpu_model_to_json(a.cpu_model)},
          {"machine", a.machine},
          {"cells", std::move(cells)},
          {"adjusted_levels", adjusted_levels_to_json(a.adjusted_levels)}};
}

}  // namespace

Result<GuestPlan> plan_guest(Layout layout, const HostFacts& facts) {
  if (facts.vcpu_limit) TL_TRY(check_vcpu_limit(layout, *facts.vcpu_limit));
  // The limit's refusal names the layout itself; the planner's says what did not fit where.
  TL_ASSIGN_CTX(auto placement, plan_placement(layout, facts.host), "layout " + layout.name);
  GuestPlan plan{std::move(layout), std::move(placement), std::nullopt};
  if (facts.accel) TL_TRY(announce_plan(plan, *facts.accel, facts.host.vendor));
  return plan;
}

Result<void> announce_plan(GuestPlan& plan, Accelerator accel, const std::string& host_vendor) {
  TL_ASSIGN_CTX(plan.announced, announce_topology(plan.layout, plan.placement, accel, host_vendor),
                "layout " + plan.layout.name);
  return {};
}

nlohmann::json guest_plan_to_json(const GuestPlan& plan, const std::string& domain_xml) {
  nlohmann::json j = plan_to_json(plan.placement);
  if (plan.announced) j["announced"] = announced_to_json(*plan.announced);
  if (!domain_xml.empty()) j["domain_xml"] = domain_xml;
  return j;
}

}  // namespace topolab::plan
