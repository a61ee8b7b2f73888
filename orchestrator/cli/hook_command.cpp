// `topolab hook DOMAIN OPERATION`: dynamic isolation from the libvirt qemu hook. Thin: options
// -> isolation::run_hook.
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "common/json_text.hpp"
#include "orchestrator/base/install/install_paths.hpp"
#include "orchestrator/base/logging/log.hpp"
#include "orchestrator/cli/command.hpp"
#include "orchestrator/hostprep/isolation/hook.hpp"

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
    cmd->add_option("--domain-xml", domain_xml_,
                    "the domain's XML, '-' for stdin (what libvirt passes the hook): read for "
                    "a topolab-* domain without a layout, to isolate an experiment's copy with "
                    "its template's layout");
    cmd->add_option("--root", root_, "filesystem root for /sys, /proc, /var/lib (tests)")
        ->capture_default_str();
    cmd->add_flag("--dry-run", dry_run_,
                  "print the plan (or what release restores), change nothing");
    cmd->add_flag("--install-snippet", snippet_,
                  "print the /etc/libvirt/hooks/qemu script that calls this command");
    cmd->add_flag("--uninstall-snippet", uninstall_,
                  "remove /etc/libvirt/hooks/qemu (under --root) if it is still exactly the "
                  "snippet --install-snippet printed");
    cmd->add_flag("--force", force_,
                  "--install-snippet: allow a binary in a build tree (the hook breaks when "
                  "that folder goes)");
    cmd->add_flag("--json", json_, "print JSON");
    return cmd;
  }

  int run() override {
    if (snippet_) return install_snippet();
    if (uninstall_) return remove_snippet();
    if (domain_.empty() || operation_.empty()) {
      return fail("hook", "expected DOMAIN OPERATION (or --install-snippet)", ExitCode::usage);
    }
    isolation::HookRequest request{domain_, operation_, layout_,    guest_cpus_,
                                   root_,   dry_run_,   domain_xml_};
    auto outcome = isolation::run_hook(request);
    if (!outcome) return fail("hook", outcome.error().context(domain_ + " " + operation_));
    bool failed = outcome->report && !outcome->report->failures.empty();
    // -q (console at warn or above): a hook that did its work prints nothing; a dry run (the
    // user asked for its output) and failures still print.
    const bool quiet = logging::console_level() >= logging::Level::warn;
    if (json_) {
      std::cout << json_document(isolation::outcome_to_json(*outcome));
    } else if (!quiet || dry_run_ || failed) {
      isolation::print_outcome(std::cout, *outcome);
    }
    return to_int(failed ? ExitCode::mismatch : ExitCode::ok);
  }

 private:
  // The snippet names this binary: one in a build tree vanishes with the build folder, and
  // then libvirt cannot start any guest (the hook fails closed), so that needs --force.
  int install_snippet() {
    const auto paths = install_paths();
    if (!paths.build_marker.empty() && !force_) {
      return fail("hook",
                  "refusing --install-snippet from a build tree (" + own_binary().string() +
                      ", marker " + paths.build_marker.string() +
                      "): the hook would call this binary and stop every guest from starting "
                      "once the build folder is gone; install topolab (cmake --install, or "
                      "the .deb) and run the installed one, or add --force",
                  ExitCode::failed);
    }
    std::cout << isolation::hook_snippet(own_binary());
    return to_int(ExitCode::ok);
  }

  int remove_snippet() {
    auto r = isolation::uninstall_snippet(root_, dry_run_);
    if (!r) return fail("hook", r.error().context("--uninstall-snippet"));
    const std::string what = !r->found    ? "nothing to remove"
                             : r->removed ? "removed"
                                          : "would remove (dry run)";
    if (json_) {
      std::cout << json_document({{"file", r->file.string()},
                                  {"found", r->found},
                                  {"removed", r->removed},
                                  {"binary", r->binary}});
    } else {
      std::cout << r->file.string() << ": " << what
                << (r->found ? " (topolab's snippet calling " + r->binary + ")" : "") << "\n";
      if (r->removed) std::cout << "restart libvirtd so it stops calling the hook\n";
    }
    return to_int(ExitCode::ok);
  }

  std::string domain_, operation_, layout_, guest_cpus_, root_ = "/", domain_xml_;
  std::vector<std::string> extra_;
  bool dry_run_ = false, snippet_ = false, uninstall_ = false, force_ = false, json_ = false;
};

}  // namespace

std::unique_ptr<Command> make_hook_command() { return std::make_unique<HookCommand>(); }

}  // namespace topolab::cli
