// `topolab plan LAYOUT [source] [overrides] [--json]`: where every vCPU goes, which host L3
// domain backs each group, the announced topology, warnings.
#include <iostream>

#include "common/json_text.hpp"
#include "orchestrator/cli/command.hpp"
#include "orchestrator/cli/placed_layout.hpp"
#include "orchestrator/cli/topology_source_options.hpp"
#include "orchestrator/planning/placement/placement_plan.hpp"
#include "orchestrator/planning/placement/plan_printer.hpp"

namespace topolab::cli {
namespace {

class PlanCommand : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    auto* cmd = app.add_subcommand("plan", "place a layout's vCPUs on the host (L3-aware)");
    add_layout_options(cmd, args_);
    add_topology_source_options(cmd, source_);
    cmd->add_flag("--json", json_, "print the plan as JSON");
    return cmd;
  }

  int run() override {
    auto placed = load_placed_layout(args_, source_);
    if (!placed) return fail("plan", placed.error());
    const Layout& layout = placed->plan.layout;
    const PlacementPlan& plan = placed->plan.placement;
    const HostTopology& host = placed->host;
    if (json_) {
      auto j = plan_to_json(plan);
      j["layout"] = {{"name", layout.name},
                     {"l3_groups", layout.l3_groups},
                     {"cores_per_group", layout.cores_per_group},
                     {"threads_per_core", layout.threads_per_core},
                     {"memory_mib", layout.memory_mib},
                     {"expose", to_string(layout.expose)},
                     {"policy", to_string(layout.policy)}};
      j["host_source"] = host.source;
      std::cout << json_document(j);
    } else {
      print_plan(std::cout, layout, plan, host);
    }
    return to_int(ExitCode::ok);
  }

 private:
  LayoutArgs args_;
  TopologySource source_;
  bool json_ = false;
};

}  // namespace

std::unique_ptr<Command> make_plan_command() { return std::make_unique<PlanCommand>(); }

}  // namespace topolab::cli
