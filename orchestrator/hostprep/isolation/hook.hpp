#pragma once
// `topolab hook DOMAIN OPERATION`: what the libvirt qemu hook (/etc/libvirt/hooks/qemu) calls.
// On prepare (or start, if prepare did nothing) of a domain with a registered layout
// (/etc/topolab/layouts/DOMAIN.toml, or --layout) it applies dynamic isolation for the
// layout's host CPUs; on release it restores from the undo record. Other domains and
// operations are left alone. Never calls back into libvirt (libvirt waits for the hook).
#include <filesystem>
#include <optional>
#include <string>

#include "orchestrator/hostprep/isolation/isolation_apply.hpp"

namespace topolab::isolation {

enum class HookAction { kApply, kRelease, kNone };
std::string to_string(HookAction);

// prepare -> apply; start -> apply unless a record exists (prepare did it); release -> release.
HookAction hook_action_for(std::string_view operation, bool record_exists);

// "/etc/topolab/layouts/DOMAIN.toml" (live path, resolved under root).
std::string registered_layout_path(const std::string& domain);

struct HookRequest {
  std::string domain, operation;
  std::string layout_file;  // empty: the registered one
  std::string guest_cpus;   // CPU list overriding the layout's (manual use, tests)
  std::filesystem::path root = "/";
  bool dry_run = false;
  // The domain XML libvirt passes the hook: "-" (stdin, what the snippet gives) or a file; ""
  // none. Read (hook_domain_xml.hpp) only on prepare/start of a topolab-* domain without a
  // layout of its own: an experiment's copy names its template there.
  std::string domain_xml;
};

struct HookOutcome {
  std::string domain, operation;
  HookAction action = HookAction::kNone;
  std::string reason;           // why this action (or none)
  std::string template_domain;  // a copy isolated with its template's layout: the template
  bool dry_run = false;
  std::optional<IsolationPlan> plan;  // apply: the plan; release: the record
  std::optional<ApplyReport> report;  // absent on dry runs and no-ops
};

Result<HookOutcome> run_hook(const HookRequest&);
nlohmann::json outcome_to_json(const HookOutcome&);
void print_outcome(std::ostream&, const HookOutcome&);

// TEXT as one POSIX sh word: in single quotes, each ' written as '\''.
std::string shell_single_quoted(const std::string& text);

// The /etc/libvirt/hooks/qemu script that calls `BINARY hook` with the domain XML on stdin.
std::string hook_snippet(const std::filesystem::path& topolab_binary);
// The snippet topolab wrote before issue 34 (stdin from /dev/null): still topolab's to remove.
std::string hook_snippet_without_xml(const std::filesystem::path& topolab_binary);

// `hook --uninstall-snippet`: the hook file (ROOT/etc/libvirt/hooks/qemu) is removed only when
// it is exactly a snippet hook_snippet() wrote (for whichever binary it names); a file merged
// or edited by hand is refused with what to delete, a missing one is nothing to do.
struct SnippetRemoval {
  std::filesystem::path file;
  bool removed = false;  // false on a dry run or when there was no file
  bool found = false;
  std::string binary;  // the binary the snippet called
};
Result<SnippetRemoval> uninstall_snippet(const std::filesystem::path& root, bool dry_run);

}  // namespace topolab::isolation
