// `topolab hook DOMAIN OPERATION`: dynamic isolation from the libvirt qemu hook. Thin: options
// -> isolation::run_hook.
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "common/json_text.hpp"
#include "orchestrator/cli/command.hpp"
#include "orchestrator/isolation/hook.hpp"

namespace topolab::cli {
namespace {

std::filesystem::path own_binary() {
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path("/usr/local/bin/topolab") : self;
}

class HookCommand : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    auto* cmd = app.add_subcommand(
        "hook",
        "libvirt qemu hook: isolate a registered domain's CPUs on prepare/start, restore "
        "on release");
    cmd->add_option("domain", domain_, "libvirt domain name ($1 of the hook)");
    cmd->add_option("operation", operation_, "hook operation ($2: prepare, start, release, ...)");
    cmd->add_option("extra", extra_, "further hook arguments (ignored)");
    cmd->add_option("--layout", layout_,
                    "layout file (default: /etc/topolab/layouts/DOMAIN.toml under --root)");
    cmd->add_option("--guest-cpus", guest_cpus_, "host CPUs to isolate (overrides the layout)");
    cmd->add_option("--root", root_, "filesystem root for /sys, /proc, /var/lib (tests)")
        ->capture_default_str();
    cmd->add_flag("--dry-run", dry_run_,
                  "print the plan (or what release restores), change nothing");
    cmd->add_flag("--install-snippet", snippet_,
                  "print the /etc/libvirt/hooks/qemu script that calls this command");
    cmd->add_flag("--json", json_, "print JSON");
    return cmd;
  }

  int run() override {
    if (snippet_) {
      std::cout << isolation::hook_snippet(own_binary());
      return 0;
    }
    if (domain_.empty() || operation_.empty()) {
      return fail("hook", "expected DOMAIN OPERATION (or --install-snippet)", ExitCode::usage);
    }
    isolation::HookRequest request{domain_, operation_, layout_, guest_cpus_, root_, dry_run_};
    auto outcome = isolation::run_hook(request);
    if (!outcome) return fail("hook", outcome.error().context(domain_ + " " + operation_));
    if (json_) {
      std::cout << json_document(isolation::outcome_to_json(*outcome));
    } else {
      isolation::print_outcome(std::cout, *outcome);
    }
    bool failed = outcome->report && !outcome->report->failures.empty();
    return to_int(failed ? ExitCode::mismatch : ExitCode::ok);
  }

 private:
  std::string domain_, operation_, layout_, guest_cpus_, root_ = "/";
  std::vector<std::string> extra_;
  bool dry_run_ = false, snippet_ = false, json_ = false;
};

}  // namespace

std::unique_ptr<Command> make_hook_command() { return std::make_unique<HookCommand>(); }

}  // namespace topolab::cli
