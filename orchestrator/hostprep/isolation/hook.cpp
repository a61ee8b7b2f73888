#include "orchestrator/hostprep/isolation/hook.hpp"

#include <ostream>

#include "orchestrator/hostprep/doctor/doctor.hpp"
#include "orchestrator/hostprep/doctor/layout_requirements.hpp"
#include "orchestrator/hostprep/isolation/hook_domain_xml.hpp"

namespace topolab::isolation {

std::string to_string(HookAction a) {
  switch (a) {
    case HookAction::kApply:
      return "apply";
    case HookAction::kRelease:
      return "release";
    case HookAction::kNone:
      return "none";
  }
  return "?";
}

HookAction hook_action_for(std::string_view operation, bool record_exists) {
  if (operation == "prepare") return HookAction::kApply;
  if (operation == "start") return record_exists ? HookAction::kNone : HookAction::kApply;
  if (operation == "release") return HookAction::kRelease;
  return HookAction::kNone;
}

std::string registered_layout_path(const std::string& domain) {
  return "/etc/topolab/layouts/" + domain + ".toml";
}

namespace {

Result<IsolationPlan> plan_for_layout(const SysRoot& root, const HookRequest& request,
                                      const std::string& layout_file) {
  doctor::RequirementsRequest rr;
  rr.layout_file = layout_file;
  rr.guest_cpus = request.guest_cpus;
  rr.root = root.root().string();
  TL_ASSIGN(auto req, doctor::load_guest_requirements(rr));
  if (!req.placement_error.empty()) return make_error(ErrorKind::does_not_fit, req.placement_error);
  IsolationRequest ir;
  ir.domain = request.domain;
  ir.guest_cpus = req.guest_cpus;
  ir.housekeeping_cpus = req.housekeeping_cpus;
  return plan_isolation(root, ir);
}

// The layout file that isolates the domain: its own registered one, else (an experiment's copy,
// whose XML names its template) the template's; "" when there is none, said in out.reason.
Result<std::string> registered_layout(const SysRoot& root, const HookRequest& request,
                                      HookOutcome& out) {
  const std::string own = registered_layout_path(request.domain);
  if (root.exists(own)) return root.at(own).string();
  out.reason = "no layout registered for " + request.domain + " (" + own + ")";
  if (request.domain_xml.empty() || !may_be_a_copy(request.domain)) return std::string();
  TL_ASSIGN(const auto xml, read_hook_xml_from(request.domain_xml));
  TL_ASSIGN(const auto template_domain, template_of_copy(xml, request.domain));
  if (template_domain.empty()) return std::string();
  const std::string theirs = registered_layout_path(template_domain);
  if (!root.exists(theirs)) {
    out.reason = "no layout registered for " + request.domain + " nor for " + template_domain +
                 ", the template it is a copy of (" + theirs + ")";
    return std::string();
  }
  out.template_domain = template_domain;
  return root.at(theirs).string();
}

}  // namespace

Result<HookOutcome> run_hook(const HookRequest& request) {
  TL_TRY(check_domain_name(request.domain));
  TL_TRY(doctor::check_root_folder(request.root));
  SysRoot root(request.root);
  HookOutcome out;
  out.domain = request.domain;
  out.operation = request.operation;
  out.dry_run = request.dry_run;
  bool record = has_undo_record(root, request.domain);
  HookAction action = hook_action_for(request.operation, record);
  if (action == HookAction::kNone) {
    out.reason = record && request.operation == "start"
                     ? "already isolated at prepare"
                     : "operation '" + request.operation + "' needs nothing";
    return out;
  }
  if (action == HookAction::kRelease) {
    if (!record) {
      out.reason = "no isolation record for " + request.domain;
      return out;
    }
    TL_ASSIGN(auto plan, read_undo_record(root, request.domain));
    out.action = action;
    out.plan = plan;
    out.reason = "restoring " + std::to_string(plan.actions.size()) + " values from " +
                 undo_record_path(request.domain);
    if (!request.dry_run) {
      TL_ASSIGN(auto report, release_isolation(root, request.domain));
      out.report = report;
    }
    return out;
  }
  std::string layout = request.layout_file;
  if (layout.empty() && request.guest_cpus.empty()) {
    TL_ASSIGN(layout, registered_layout(root, request, out));
    if (layout.empty()) return out;
  }
  auto plan = plan_for_layout(root, request, layout);
  if (!plan) return layout.empty() ? plan.error() : plan.error().context(layout);
  out.action = action;
  out.plan = *plan;
  out.reason =
      "isolating guest CPUs " + plan->guest_cpus.to_string() +
      (layout.empty() ? std::string(" (--guest-cpus)") : " of layout " + layout) +
      (out.template_domain.empty() ? std::string() : " (a copy of " + out.template_domain + ")");
  if (!request.dry_run) {
    TL_ASSIGN(auto report, apply_isolation(root, *plan));
    out.report = report;
  }
  return out;
}

namespace {

// Release writes every recorded `before` back, last action first: the plan shown for it is
// that order and direction (the forward plan under "restoring" read as the opposite).
void print_restore_plan(std::ostream& out, const IsolationPlan& plan) {
  out << "restore plan for " << plan.domain << ": guest CPUs " << plan.guest_cpus.to_string()
      << " given back to the host\n";
  for (auto a = plan.actions.rbegin(); a != plan.actions.rend(); ++a) {
    out << "  " << to_string(a->kind) << "  " << a->path << ": '" << a->after << "' -> '"
        << a->before << "'\n";
  }
  if (plan.actions.empty()) out << "  (nothing to restore)\n";
}

nlohmann::json restore_plan_to_json(const IsolationPlan& plan) {
  nlohmann::json list = nlohmann::json::array();
  for (auto a = plan.actions.rbegin(); a != plan.actions.rend(); ++a) {
    list.push_back(
        {{"kind", to_string(a->kind)}, {"path", a->path}, {"from", a->after}, {"to", a->before}});
  }
  return list;
}

}  // namespace

nlohmann::json outcome_to_json(const HookOutcome& o) {
  nlohmann::json j = {{"domain", o.domain},
                      {"operation", o.operation},
                      {"action", to_string(o.action)},
                      {"reason", o.reason},
                      {"dry_run", o.dry_run}};
  if (!o.template_domain.empty()) j["template"] = o.template_domain;
  if (o.plan) j["plan"] = plan_to_json(*o.plan);
  if (o.plan && o.action == HookAction::kRelease) j["restoring"] = restore_plan_to_json(*o.plan);
  if (o.report) j["report"] = report_to_json(*o.report);
  return j;
}

void print_outcome(std::ostream& out, const HookOutcome& o) {
  out << o.domain << " " << o.operation << ": " << to_string(o.action)
      << (o.dry_run ? " (dry run)" : "") << ": " << o.reason << "\n";
  if (o.plan && o.action == HookAction::kRelease) {
    print_restore_plan(out, *o.plan);
  } else if (o.plan) {
    print_plan(out, *o.plan);
  }
  if (o.report) {
    out << "  " << (o.action == HookAction::kRelease ? "restored " : "changed ")
        << o.report->done.size() << " values\n";
    for (const auto& f : o.report->failures) out << "  failed: " << f << "\n";
    for (const auto& n : o.report->notes) out << "  note: " << n << "\n";
  }
}

std::string shell_single_quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

namespace {

// `input`: how the call gets its stdin (the domain XML, or /dev/null before issue 34).
std::string snippet_text(const std::filesystem::path& topolab_binary, const std::string& input) {
  // The install path is data: a quote, $(...) or a space in it must not become shell syntax.
  const std::string call = "    " + shell_single_quoted(topolab_binary.string()) +
                           " hook \"$1\" \"$2\" " + input +
                           " \\\n"
                           "      >>/var/log/topolab-hook.log 2>&1";
  // Fails closed: a guest whose registered layout cannot be read (missing, a FIFO, too deep,
  // invalid) or isolated must not start unisolated and measure a shared host. libvirt aborts
  // the start when prepare/start exits non-zero, then calls release, which restores whatever
  // was recorded. release itself never blocks.
  return "#!/bin/sh\n"
         "# /etc/libvirt/hooks/qemu -- generated by `topolab hook --install-snippet`.\n"
         "# libvirt runs it as: qemu DOMAIN OPERATION SUB-OPERATION EXTRA (domain XML on stdin).\n"
         "# topolab isolates the host CPUs of domains that have a layout registered in\n"
         "# /etc/topolab/layouts/DOMAIN.toml and restores everything on release. Domains without\n"
         "# a registered layout are left alone. If the isolation of a registered domain fails\n"
         "# (the reason is in the log), prepare/start exit 1 and libvirt does not start the\n"
         "# guest; release never blocks. Restart libvirtd after creating this file.\n"
         "case \"$2\" in\n"
         "  prepare|start)\n" +
         call +
         " || exit 1\n"
         "    ;;\n"
         "  release)\n" +
         call +
         " || true\n"
         "    ;;\n"
         "esac\n"
         "exit 0\n";
}

}  // namespace

// libvirt writes the domain XML on the hook's stdin: an experiment's copy names its template
// there (hook_domain_xml.hpp).
std::string hook_snippet(const std::filesystem::path& topolab_binary) {
  return snippet_text(topolab_binary, "--domain-xml -");
}

std::string hook_snippet_without_xml(const std::filesystem::path& topolab_binary) {
  return snippet_text(topolab_binary, "</dev/null");
}

}  // namespace topolab::isolation
