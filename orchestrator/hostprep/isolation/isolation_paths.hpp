#pragma once
// The only files dynamic isolation writes, built in one place: the planner names its writes
// with these, and a record read back (replayed as root on release) must hold exactly such
// paths with values of their kind.
#include <string>
#include <string_view>

#include "orchestrator/hostprep/isolation/isolation_plan.hpp"

namespace topolab::isolation {

extern const std::string kIrqDefaultPath;               // "/proc/irq/default_smp_affinity"
std::string irq_affinity_path(const std::string& irq);  // "/proc/irq/IRQ/smp_affinity_list"
std::string governor_path(int cpu);                     // ".../cpuN/cpufreq/scaling_governor"
std::string subtree_control_path(const std::string& mount);
std::string slice_cpus_path(const std::string& mount, const std::string& slice);

// An IRQ folder name under /proc/irq: decimal, no leading zero.
bool is_irq_name(std::string_view irq);

// The action's path is one the planner writes for its kind, and its before/after values are
// of that kind (+cpuset/-cpuset, CPU lists, a hex mask, a governor name).
Result<void> check_recorded_action(const IsolationAction&);

}  // namespace topolab::isolation
