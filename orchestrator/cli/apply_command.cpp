// `topolab apply DOMAIN LAYOUT [--connect URI] [--dry-run] [--live] [--backup-dir DIR]`:
// rewrites only the CPU sections of an existing persistent domain, keeps the rest, backs up
// the previous XML and prints a diff. `topolab apply DOMAIN --undo` defines that backup again.
#include <iostream>

#include "common/json_text.hpp"
#include "orchestrator/base/logging/log.hpp"
#include "orchestrator/cli/command.hpp"
#include "orchestrator/cli/placed_layout.hpp"
#include "orchestrator/libvirt/apply/apply_undo.hpp"
#include "orchestrator/libvirt/apply/domain_apply.hpp"
#include "orchestrator/libvirt/hostsource/host_source.hpp"

namespace topolab::cli {
namespace {

class ApplyCommand : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    auto* cmd = app.add_subcommand(
        "apply", "rewrite the vCPU/CPU/NUMA sections of an existing domain for a layout");
    cmd->add_option("domain", opts_.domain, "name of an existing persistent libvirt domain")
        ->required();
    add_layout_options(cmd, args_);
    // --undo needs no layout: the positional is required only without it (checked in run).
    cmd->get_option("layout")->required(false);
    cmd->add_flag("--undo", undo_,
                  "define again the XML the last apply of DOMAIN saved in --backup-dir");
    cmd->add_option("-c,--connect", opts_.connect_uri, "libvirt URI (default qemu:///system)");
    cmd->add_flag("--dry-run", opts_.dry_run, "print the diff; change nothing");
    cmd->add_flag("--live", opts_.live, "allow a running domain: redefine it and re-pin vCPUs now");
    cmd->add_option("--backup-dir", opts_.backup_dir,
                    "where the previous XML is saved (default ./topolab-backups)");
    cmd->add_flag("--json", json_, "print {\"changed\",\"backup\",\"diff\",\"notes\"} as JSON");
    return cmd;
  }

  int run() override {
    if (undo_) return run_undo();
    if (args_.layout.empty())
      return fail("apply", "expected DOMAIN LAYOUT (or DOMAIN --undo)", ExitCode::usage);
    TopologySource src;
    src.connect = opts_.connect_uri;
    auto placed = load_placed_layout(args_, src);
    if (!placed) return fail("apply", placed.error());
    const PlacementPlan& plan = placed->plan.placement;
    auto result = apply_layout_to_domain(opts_, placed->plan.layout, plan, placed->host.vendor);
    if (!result) return fail("apply", result.error());
    if (json_) {
      nlohmann::json j = {{"domain", opts_.domain},   {"changed", result->changed},
                          {"dry_run", opts_.dry_run}, {"backup", result->backup.string()},
                          {"diff", result->diff},     {"notes", result->notes},
                          {"warnings", plan.warnings}};
      std::cout << json_document(j);
      return to_int(ExitCode::ok);
    }
    std::cout << result->diff;
    for (const auto& w : plan.warnings) logging::warn("{}", w);
    for (const auto& n : result->notes) logging::info("note: {}", n);
    if (!result->backup.empty()) {
      logging::info("defined '{}'; previous XML saved to {}", opts_.domain,
                    result->backup.string());
    }
    return to_int(ExitCode::ok);
  }

 private:
  int run_undo() {
    if (!args_.layout.empty() || !args_.overrides.empty() || !args_.sets.empty()) {
      return fail("apply", "--undo takes no layout or layout options", ExitCode::usage);
    }
    auto result = undo_last_apply(opts_);
    if (!result) return fail("apply", result.error().context("--undo"));
    if (json_) {
      nlohmann::json j = {{"domain", opts_.domain},
                          {"undo", true},
                          {"changed", result->changed},
                          {"dry_run", opts_.dry_run},
                          {"backup", result->backup.string()},
                          {"diff", result->diff},
                          {"notes", result->notes}};
      std::cout << json_document(j);
      return to_int(ExitCode::ok);
    }
    std::cout << result->diff;
    for (const auto& n : result->notes) logging::info("note: {}", n);
    const char* verb = opts_.dry_run ? "would restore" : result->changed ? "restored" : "kept";
    logging::info("{} '{}' from {}", verb, opts_.domain, result->backup.string());
    return to_int(ExitCode::ok);
  }

  ApplyOptions opts_;
  LayoutArgs args_;
  bool json_ = false, undo_ = false;
};

}  // namespace

std::unique_ptr<Command> make_apply_command() { return std::make_unique<ApplyCommand>(); }

}  // namespace topolab::cli
