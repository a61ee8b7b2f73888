#include "orchestrator/hostprep/isolation/isolation_paths.hpp"

#include <algorithm>

#include "orchestrator/hostprep/doctor/checks.hpp"

namespace topolab::isolation {

const std::string kIrqDefaultPath = "/proc/irq/default_smp_affinity";

std::string irq_affinity_path(const std::string& irq) {
  return "/proc/irq/" + irq + "/smp_affinity_list";
}
std::string governor_path(int cpu) {
  return "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cpufreq/scaling_governor";
}
std::string subtree_control_path(const std::string& mount) {
  return mount + "/cgroup.subtree_control";
}
std::string slice_cpus_path(const std::string& mount, const std::string& slice) {
  return mount + "/" + slice + "/cpuset.cpus";
}

namespace {

bool all_digits(std::string_view s, std::size_t max_len) {
  return !s.empty() && s.size() <= max_len &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool is_cgroup_path(const std::string& path, bool controller) {
  for (const auto& mount : doctor::cgroup2_mount_candidates()) {
    if (controller && path == subtree_control_path(mount)) return true;
    for (const auto& slice : doctor::host_slices()) {
      if (!controller && path == slice_cpus_path(mount, slice)) return true;
    }
  }
  return false;
}

// "PREFIX<number>SUFFIX" where BUILD(number) gives the path back (no leading zeros, no tricks).
template <typename Build>
bool is_numbered_path(const std::string& path, std::string_view prefix, std::string_view suffix,
                      Build build) {
  if (path.size() <= prefix.size() + suffix.size() || path.rfind(prefix, 0) != 0 ||
      !path.ends_with(suffix)) {
    return false;
  }
  const std::string number =
      path.substr(prefix.size(), path.size() - prefix.size() - suffix.size());
  return all_digits(number, 9) && build(number) == path;
}

bool is_planned_path(ActionKind kind, const std::string& path) {
  switch (kind) {
    case ActionKind::kCgroupController:
      return is_cgroup_path(path, true);
    case ActionKind::kCgroupCpus:
      return is_cgroup_path(path, false);
    case ActionKind::kIrqAffinity:
      return is_numbered_path(path, "/proc/irq/", "/smp_affinity_list", [](const std::string& n) {
        return irq_affinity_path(std::to_string(std::stoul(n)));
      });
    case ActionKind::kIrqDefault:
      return path == kIrqDefaultPath;
    case ActionKind::kGovernor:
      return is_numbered_path(path, "/sys/devices/system/cpu/cpu", "/cpufreq/scaling_governor",
                              [](const std::string& n) {
                                const int cpu = std::stoi(n);
                                return cpu < kMaxCpuIds ? governor_path(cpu) : std::string();
                              });
  }
  return false;
}

bool is_governor_name(const std::string& v) {
  return !v.empty() && v.size() <= 32 && std::all_of(v.begin(), v.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

// The values the planner writes for each kind: a record holding anything else is not ours.
bool is_planned_value(ActionKind kind, const std::string& value) {
  switch (kind) {
    case ActionKind::kCgroupController:
      return value == "+cpuset" || value == "-cpuset";
    case ActionKind::kCgroupCpus:
      return CpuList::parse(value).ok();  // "" too: an empty cpuset.cpus inherits the parent's
    case ActionKind::kIrqAffinity:
      return CpuList::parse(value).ok();
    case ActionKind::kIrqDefault:
      return CpuList::parse_mask(value).ok();
    case ActionKind::kGovernor:
      return is_governor_name(value);
  }
  return false;
}

std::string expected_paths(ActionKind kind) {
  switch (kind) {
    case ActionKind::kCgroupController:
      return "/sys/fs/cgroup[/unified]/cgroup.subtree_control";
    case ActionKind::kCgroupCpus:
      return "/sys/fs/cgroup[/unified]/{system.slice,user.slice,init.scope}/cpuset.cpus";
    case ActionKind::kIrqAffinity:
      return "/proc/irq/N/smp_affinity_list";
    case ActionKind::kIrqDefault:
      return kIrqDefaultPath;
    case ActionKind::kGovernor:
      return "/sys/devices/system/cpu/cpuN/cpufreq/scaling_governor";
  }
  return "?";
}

}  // namespace

bool is_irq_name(std::string_view irq) {
  return all_digits(irq, 9) && (irq.size() == 1 || irq.front() != '0');
}

Result<void> check_recorded_action(const IsolationAction& a) {
  if (!is_planned_path(a.kind, a.path)) {
    return make_error(ErrorKind::input, "action path '" + a.path.substr(0, 200) +
                                            "': not a file topolab writes for " +
                                            to_string(a.kind) + " (" + expected_paths(a.kind) +
                                            ")");
  }
  for (const auto* value : {&a.before, &a.after}) {
    if (!is_planned_value(a.kind, *value)) {
      return make_error(ErrorKind::input, "action " + a.path + ": value '" + value->substr(0, 80) +
                                              "' is not a " + to_string(a.kind) + " value");
    }
  }
  return {};
}

}  // namespace topolab::isolation
