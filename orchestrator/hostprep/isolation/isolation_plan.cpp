#include "orchestrator/hostprep/isolation/isolation_plan.hpp"

#include <cctype>
#include <ostream>
#include <sstream>

#include "orchestrator/hostprep/doctor/checks.hpp"
#include "orchestrator/hostprep/isolation/isolation_paths.hpp"

namespace topolab::isolation {
namespace {

bool has_word(const std::string& text, const std::string& word) {
  std::istringstream words(text);
  std::string w;
  while (words >> w) {
    if (w == word) return true;
  }
  return false;
}

void plan_cgroups(const SysRoot& root, IsolationPlan& plan) {
  auto mount = doctor::cgroup2_mount(root);
  if (!mount) {
    plan.notes.push_back(
        "cgroups: no cgroup v2 hierarchy with systemd slices (cgroup v1 or no "
        "systemd): host tasks are not confined");
    return;
  }
  auto controllers = root.attr_or_none(*mount + "/cgroup.controllers").value_or("");
  if (!has_word(controllers, "cpuset")) {
    plan.notes.push_back("cgroups: " + *mount +
                         " has no cpuset controller: host tasks are not "
                         "confined");
    return;
  }
  auto subtree = root.attr_or_none(*mount + "/cgroup.subtree_control").value_or("");
  if (!has_word(subtree, "cpuset")) {
    // Children only get cpuset.cpus once the parent delegates the controller.
    plan.actions.push_back(
        {ActionKind::kCgroupController, subtree_control_path(*mount), "-cpuset", "+cpuset"});
  }
  const std::string hk = plan.housekeeping_cpus.to_string();
  for (const auto& slice : doctor::host_slices()) {
    const std::string dir = *mount + "/" + slice;
    if (!root.exists(dir)) {
      plan.notes.push_back("cgroups: no " + dir + ", left alone");
      continue;
    }
    auto before = root.attr_or_none(dir + "/cpuset.cpus").value_or("");
    if (before == hk) continue;
    plan.actions.push_back({ActionKind::kCgroupCpus, slice_cpus_path(*mount, slice), before, hk});
  }
}

void plan_irqs(const SysRoot& root, IsolationPlan& plan) {
  int skipped = 0;
  for (const auto& irq : root.list("/proc/irq")) {
    if (!is_irq_name(irq)) continue;  // only names a record may hold (check_recorded_action)
    const std::string path = irq_affinity_path(irq);
    auto text = root.attr_or_none(path);
    if (!text) continue;
    auto cpus = CpuList::parse(*text);
    if (!cpus) {
      ++skipped;
      continue;
    }
    if (!cpus->intersects(plan.guest_cpus)) continue;
    CpuList rest = cpus->minus(plan.guest_cpus);
    CpuList after = rest.empty() ? plan.housekeeping_cpus : rest;
    plan.actions.push_back({ActionKind::kIrqAffinity, path, *text, after.to_string()});
  }
  if (skipped) plan.notes.push_back("irq: " + std::to_string(skipped) + " unreadable affinities");
  const std::string& def = kIrqDefaultPath;
  if (auto mask = root.attr_or_none(def)) {
    auto cpus = CpuList::parse_mask(*mask);
    if (cpus && cpus->intersects(plan.guest_cpus)) {
      CpuList rest = cpus->minus(plan.guest_cpus);
      plan.actions.push_back({ActionKind::kIrqDefault, def, *mask,
                              cpu_mask_string(rest.empty() ? plan.housekeeping_cpus : rest)});
    }
  }
}

void plan_governor(const SysRoot& root, IsolationPlan& plan) {
  CpuList without;
  for (int id : plan.guest_cpus) {
    const std::string dir = "/sys/devices/system/cpu/cpu" + std::to_string(id) + "/cpufreq/";
    auto gov = root.attr_or_none(governor_path(id));
    if (!gov) {
      without.insert(id);
      continue;
    }
    if (*gov == "performance") continue;
    auto available = root.attr_or_none(dir + "scaling_available_governors");
    if (available && !has_word(*available, "performance")) {
      plan.notes.push_back("governor: cpu" + std::to_string(id) +
                           " offers no performance "
                           "governor (" +
                           *available + ")");
      continue;
    }
    plan.actions.push_back({ActionKind::kGovernor, governor_path(id), *gov, "performance"});
  }
  if (!without.empty()) {
    plan.notes.push_back("governor: no cpufreq on CPUs " + without.to_string() + ", left alone");
  }
}

}  // namespace

Result<void> check_domain_name(const std::string& domain) {
  bool good = !domain.empty() && domain.size() <= 200 && domain.front() != '.';
  for (char c : domain) {
    good = good && (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ||
                    c == '.' || c == '+');
  }
  if (!good) {
    return make_error(ErrorKind::input, "domain name '" + domain +
                                            "': expected letters, digits, '-', '_', '.', "
                                            "'+' (not starting with '.')");
  }
  return {};
}

Result<IsolationPlan> plan_isolation(const SysRoot& root, const IsolationRequest& request) {
  TL_TRY(check_domain_name(request.domain));
  if (request.guest_cpus.empty()) {
    return make_error(ErrorKind::input, "isolation plan for " + request.domain +
                                            ": no guest CPUs (the layout "
                                            "names no host CPUs)");
  }
  IsolationPlan plan;
  plan.domain = request.domain;
  plan.guest_cpus = request.guest_cpus;
  plan.housekeeping_cpus = request.housekeeping_cpus;
  if (plan.housekeeping_cpus.empty()) {
    TL_ASSIGN_CTX(auto online, online_cpus(root), "isolation plan");
    plan.housekeeping_cpus = online.minus(request.guest_cpus);
  }
  if (plan.housekeeping_cpus.empty()) {
    return make_error(ErrorKind::does_not_fit,
                      "isolation plan for " + request.domain + ": guest CPUs " +
                          request.guest_cpus.to_string() + " leave no CPU for the host");
  }
  if (plan.housekeeping_cpus.intersects(plan.guest_cpus)) {
    return make_error(ErrorKind::input, "isolation plan for " + request.domain +
                                            ": housekeeping CPUs " +
                                            plan.housekeeping_cpus.to_string() +
                                            " overlap guest CPUs " + plan.guest_cpus.to_string());
  }
  if (request.cgroups) plan_cgroups(root, plan);
  if (request.irqs) plan_irqs(root, plan);
  if (request.governor) plan_governor(root, plan);
  return plan;
}

std::string to_string(ActionKind k) {
  switch (k) {
    case ActionKind::kCgroupController:
      return "cgroup-controller";
    case ActionKind::kCgroupCpus:
      return "cgroup-cpus";
    case ActionKind::kIrqAffinity:
      return "irq-affinity";
    case ActionKind::kIrqDefault:
      return "irq-default";
    case ActionKind::kGovernor:
      return "governor";
  }
  return "?";
}

Result<ActionKind> parse_action_kind(std::string_view text) {
  for (auto k : {ActionKind::kCgroupController, ActionKind::kCgroupCpus, ActionKind::kIrqAffinity,
                 ActionKind::kIrqDefault, ActionKind::kGovernor}) {
    if (to_string(k) == text) return k;
  }
  return make_error(ErrorKind::input, "action kind '" + std::string(text) +
                                          "': expected cgroup-controller, "
                                          "cgroup-cpus, irq-affinity, irq-default or governor");
}

nlohmann::json plan_to_json(const IsolationPlan& plan) {
  nlohmann::json actions = nlohmann::json::array();
  for (const auto& a : plan.actions) {
    actions.push_back(
        {{"kind", to_string(a.kind)}, {"path", a.path}, {"before", a.before}, {"after", a.after}});
  }
  return {{"domain", plan.domain},
          {"guest_cpus", plan.guest_cpus.to_string()},
          {"housekeeping_cpus", plan.housekeeping_cpus.to_string()},
          {"actions", actions},
          {"notes", plan.notes}};
}

Result<IsolationPlan> plan_from_json(const nlohmann::json& j) {
  auto bad = [](const std::string& what) {
    return make_error(ErrorKind::input, "isolation record: " + what);
  };
  if (!j.is_object()) return bad("expected a JSON object");
  IsolationPlan plan;
  try {
    plan.domain = j.at("domain").get<std::string>();
    auto guest = CpuList::parse(j.at("guest_cpus").get<std::string>());
    auto hk = CpuList::parse(j.at("housekeeping_cpus").get<std::string>());
    if (!guest || !hk) return bad("guest_cpus/housekeeping_cpus: expected CPU lists");
    plan.guest_cpus = *guest;
    plan.housekeeping_cpus = *hk;
    for (const auto& a : j.at("actions")) {
      auto kind = parse_action_kind(a.at("kind").get<std::string>());
      if (!kind) return bad(kind.error().message);
      IsolationAction action{*kind, a.at("path").get<std::string>(),
                             a.at("before").get<std::string>(), a.at("after").get<std::string>()};
      // Release writes these as root: only the files and values the planner itself produces.
      if (auto checked = check_recorded_action(action); !checked) {
        return bad(checked.error().message);
      }
      plan.actions.push_back(std::move(action));
    }
    if (j.contains("notes")) plan.notes = j.at("notes").get<std::vector<std::string>>();
  } catch (const nlohmann::json::exception& e) {
    return bad(std::string("missing or mistyped field: ") + e.what());
  }
  TL_TRY(check_domain_name(plan.domain));
  return plan;
}

void print_plan(std::ostream& out, const IsolationPlan& plan) {
  out << "isolation plan for " << plan.domain << ": guest CPUs " << plan.guest_cpus.to_string()
      << ", host work to " << plan.housekeeping_cpus.to_string() << "\n";
  for (const auto& a : plan.actions) {
    out << "  " << to_string(a.kind) << "  " << a.path << ": '" << a.before << "' -> '" << a.after
        << "'\n";
  }
  if (plan.actions.empty()) out << "  (nothing to change)\n";
  for (const auto& n : plan.notes) out << "  note: " << n << "\n";
}

}  // namespace topolab::isolation
