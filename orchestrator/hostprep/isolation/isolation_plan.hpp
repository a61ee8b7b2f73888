#pragma once
// Dynamic isolation, the runtime alternative to isolcpus (as vfio-isolate does it): while a
// guest runs, host work is moved off its CPUs — the cgroup v2 cpusets of system.slice,
// user.slice and init.scope (systemd's AllowedCPUs), IRQ affinities — and its CPUs get the
// performance governor. A plan lists every file write with the value before and after, so the
// same record undoes it (isolation_apply.hpp).
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/cpu_list.hpp"
#include "orchestrator/hostprep/hostcheck/sys_root.hpp"

namespace topolab::isolation {

enum class ActionKind { kCgroupController, kCgroupCpus, kIrqAffinity, kIrqDefault, kGovernor };

struct IsolationAction {
  ActionKind kind = ActionKind::kCgroupCpus;
  std::string path;    // live absolute path ("/proc/irq/24/smp_affinity_list")
  std::string before;  // value written back on release
  std::string after;   // value written on apply
};

struct IsolationRequest {
  std::string domain;
  CpuList guest_cpus;
  CpuList housekeeping_cpus;  // empty: every online CPU that is not a guest CPU
  bool cgroups = true, irqs = true, governor = true;
};

struct IsolationPlan {
  std::string domain;
  CpuList guest_cpus, housekeeping_cpus;
  std::vector<IsolationAction> actions;
  std::vector<std::string> notes;  // what was left alone and why
};

// Reads the current state under root and lists the writes; writes nothing.
Result<IsolationPlan> plan_isolation(const SysRoot& root, const IsolationRequest& request);

std::string to_string(ActionKind);
Result<ActionKind> parse_action_kind(std::string_view);
nlohmann::json plan_to_json(const IsolationPlan&);
Result<IsolationPlan> plan_from_json(const nlohmann::json&);
void print_plan(std::ostream&, const IsolationPlan&);

// Domain names become file names: letters, digits, '-', '_', '.', '+', not starting with '.'.
Result<void> check_domain_name(const std::string& domain);

}  // namespace topolab::isolation
