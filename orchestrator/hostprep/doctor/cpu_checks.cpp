// Checks about the guest's host CPUs: isolation, frequency governor, interrupts.
#include <algorithm>
#include <cctype>
#include <map>
#include <sstream>

#include "orchestrator/hostprep/doctor/checks.hpp"

namespace topolab::doctor {
namespace {

std::string list_or_none(const CpuList& l) { return l.empty() ? "none" : l.to_string(); }

// The guest's CPUs when known, else every online CPU (host-only report).
CpuList cpus_of_interest(const SysRoot& root, const GuestRequirements* req) {
  if (req && !req->guest_cpus.empty()) return req->guest_cpus;
  return online_cpus(root).value_or(CpuList{});
}

std::string housekeeping_for(const SysRoot& root, const GuestRequirements& req) {
  if (!req.housekeeping_cpus.empty()) return req.housekeeping_cpus.to_string();
  auto online = online_cpus(root);
  if (!online) return "<housekeeping CPUs>";
  auto rest = online->minus(req.guest_cpus);
  return rest.empty() ? "<housekeeping CPUs>" : rest.to_string();
}

}  // namespace

const std::vector<std::string>& host_slices() {
  static const std::vector<std::string> s = {"system.slice", "user.slice", "init.scope"};
  return s;
}

const std::vector<std::string>& cgroup2_mount_candidates() {
  static const std::vector<std::string> m = {"/sys/fs/cgroup", "/sys/fs/cgroup/unified"};
  return m;
}

std::optional<std::string> cgroup2_mount(const SysRoot& root) {
  for (const auto& dir : cgroup2_mount_candidates()) {
    if (!root.exists(dir + "/cgroup.controllers")) continue;
    for (const auto& slice : host_slices()) {
      if (root.exists(dir + "/" + slice)) return dir;
    }
    if (dir == "/sys/fs/cgroup") return dir;
  }
  return std::nullopt;
}

Result<std::pair<std::vector<std::string>, CpuList>> parse_isolcpus(const std::string& value) {
  std::vector<std::string> flags;
  std::string rest = value;
  // Leading known words are flags ("managed_irq,domain,2-7"); the rest is the list.
  for (;;) {
    auto comma = rest.find(',');
    std::string word = rest.substr(0, comma);
    if (word != "nohz" && word != "domain" && word != "managed_irq") break;
    flags.push_back(word);
    rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
  }
  TL_ASSIGN_CTX(auto list, CpuList::parse(rest), "isolcpus=" + value);
  return std::make_pair(flags, list);
}

KernelIsolation read_kernel_isolation(const SysRoot& root) {
  KernelIsolation k;
  auto cmdline = root.attr_or_none("/proc/cmdline").value_or("");
  if (auto v = kernel_param(cmdline, "isolcpus")) {
    if (auto parsed = parse_isolcpus(*v)) std::tie(k.isolcpus_flags, k.isolcpus) = *parsed;
  }
  if (auto v = kernel_param(cmdline, "nohz_full")) {
    k.nohz_full = CpuList::parse(*v).value_or(CpuList{});
  }
  k.sysfs_isolated = root.cpu_list("/sys/devices/system/cpu/isolated").value_or(CpuList{});
  return k;
}

CheckResult check_isolated_cpus(const SysRoot& root, const GuestRequirements* req) {
  auto k = read_kernel_isolation(root);
  CpuList isolated = k.isolcpus.united(k.sysfs_isolated);
  std::string state = "isolcpus " + list_or_none(k.isolcpus) + ", nohz_full " +
                      list_or_none(k.nohz_full) + ", isolated " + list_or_none(k.sysfs_isolated);
  // cgroup v2 AllowedCPUs of the host's slices (set by systemd or by `topolab hook`).
  auto mount = cgroup2_mount(root);
  std::vector<std::pair<std::string, CpuList>> slices;
  if (mount) {
    for (const auto& s : host_slices()) {
      auto cpus = root.attr_or_none(*mount + "/" + s + "/cpuset.cpus");
      if (cpus && !cpus->empty()) {
        if (auto l = CpuList::parse(*cpus)) slices.emplace_back(s, *l);
      }
    }
  }
  std::string cg;
  for (const auto& [s, l] : slices) cg += (cg.empty() ? "" : ", ") + s + " " + l.to_string();
  state += mount ? ", cgroup2 AllowedCPUs: " + (cg.empty() ? std::string("not set") : cg)
                 : ", no cgroup v2 with systemd slices";

  if (!req || req->guest_cpus.empty()) {
    return ok("isolation", state + " (no layout: guest CPUs unknown)");
  }
  const CpuList& guest = req->guest_cpus;
  bool by_kernel = guest.is_subset_of(isolated);
  bool by_cgroup = slices.size() == host_slices().size();
  for (const auto& [s, l] : slices) by_cgroup = by_cgroup && !l.intersects(guest);
  std::string hk = housekeeping_for(root, *req);
  if (by_kernel || by_cgroup) {
    std::string how = by_kernel ? "isolated by the kernel" : "kept free by cgroup AllowedCPUs";
    if (by_kernel && !guest.is_subset_of(k.nohz_full)) how += " (not nohz_full: tick still runs)";
    return ok("isolation", "guest CPUs " + guest.to_string() + " " + how + "; " + state);
  }
  std::string reason = "guest CPUs " + guest.to_string() + " share time with host work";
  if (!isolated.empty()) reason += " (isolated CPUs " + isolated.to_string() + " miss some)";
  return warn("isolation", reason + "; " + state,
              "topolab hook --install-snippet  # dynamic isolation at guest start; or add "
              "isolcpus=" +
                  guest.to_string() + " nohz_full=" + guest.to_string() +
                  " to GRUB_CMDLINE_LINUX; runtime only: systemctl set-property --runtime "
                  "system.slice AllowedCPUs=" +
                  hk);
}

CheckResult check_cpufreq(const SysRoot& root, const GuestRequirements* req) {
  CpuList cpus = cpus_of_interest(root, req);
  std::map<std::string, CpuList> by_governor;
  CpuList without;
  for (int id : cpus) {
    auto g = root.attr_or_none("/sys/devices/system/cpu/cpu" + std::to_string(id) +
                               "/cpufreq/scaling_governor");
    if (g) {
      by_governor[*g].insert(id);
    } else {
      without.insert(id);
    }
  }
  std::string whose = req && !req->guest_cpus.empty() ? "guest CPUs " : "CPUs ";
  if (by_governor.empty()) {
    return skip("cpufreq", "no cpufreq on " + whose + list_or_none(cpus) +
                               " (no frequency driver, e.g. inside a VM): the host decides");
  }
  std::string state;
  for (const auto& [g, l] : by_governor)
    state += (state.empty() ? "" : ", ") + g + " on " + l.to_string();
  if (!without.empty()) state += ", no cpufreq on " + without.to_string();
  // Boost: acpi-cpufreq/amd-pstate have cpufreq/boost, intel_pstate has no_turbo.
  if (auto boost = root.attr_or_none("/sys/devices/system/cpu/cpufreq/boost")) {
    state += std::string(", boost ") + (*boost == "1" ? "on" : "off");
  } else if (auto nt = root.attr_or_none("/sys/devices/system/cpu/intel_pstate/no_turbo")) {
    state += std::string(", turbo ") + (*nt == "1" ? "off" : "on");
  }
  CpuList slow;
  for (const auto& [g, l] : by_governor) {
    if (g != "performance") slow = slow.united(l);
  }
  if (!slow.empty()) {
    return warn("cpufreq",
                whose + state +
                    ": non-performance governors ramp up late (latency, "
                    "noisy measurements)",
                "cpupower -c " + slow.to_string() +
                    " frequency-set -g performance  # or topolab "
                    "hook does it while the guest runs");
  }
  return ok("cpufreq", whose + state);
}

namespace {

bool irqbalance_running(const SysRoot& root) {
  for (const auto& entry : root.list("/proc")) {
    if (entry.empty() || !std::isdigit(static_cast<unsigned char>(entry.front()))) continue;
    if (root.attr_or_none("/proc/" + entry + "/comm").value_or("") == "irqbalance") return true;
  }
  return false;
}

// IRQBALANCE_BANNED_CPULIST from /etc/default/irqbalance (Debian), empty when not set.
CpuList irqbalance_banned(const SysRoot& root) {
  auto text = root.attr_or_none("/etc/default/irqbalance").value_or("");
  std::istringstream lines(text);
  std::string line;
  CpuList banned;
  while (std::getline(lines, line)) {
    const std::string key = "IRQBALANCE_BANNED_CPULIST=";
    if (line.rfind(key, 0) != 0) continue;
    std::string v = line.substr(key.size());
    v.erase(std::remove(v.begin(), v.end(), '"'), v.end());
    banned = CpuList::parse(v).value_or(CpuList{});
  }
  return banned;
}

}  // namespace

CheckResult check_irq_affinity(const SysRoot& root, const GuestRequirements* req) {
  bool balancing = irqbalance_running(root);
  CpuList banned = irqbalance_banned(root);
  std::string state = std::string("irqbalance ") + (balancing ? "running" : "not running");
  if (!banned.empty()) state += " (banned CPUs " + banned.to_string() + ")";
  if (!req || req->guest_cpus.empty()) return ok("irq", state + " (no layout: guest CPUs unknown)");
  const CpuList& guest = req->guest_cpus;
  std::vector<std::string> on_guest;
  int total = 0;
  for (const auto& irq : root.list("/proc/irq")) {
    auto aff = root.attr_or_none("/proc/irq/" + irq + "/smp_affinity_list");
    if (!aff) continue;
    ++total;
    auto l = CpuList::parse(*aff);
    if (l && l->intersects(guest)) on_guest.push_back(irq);
  }
  std::string hk = housekeeping_for(root, *req);
  std::string irqs = std::to_string(on_guest.size()) + " of " + std::to_string(total) +
                     " IRQs may fire on guest CPUs " + guest.to_string();
  if (balancing && !guest.is_subset_of(banned)) {
    return warn("irq", state + " and will move IRQs onto guest CPUs; " + irqs,
                "echo 'IRQBALANCE_BANNED_CPULIST=" + guest.to_string() +
                    "' >> /etc/default/irqbalance && systemctl restart irqbalance");
  }
  if (!on_guest.empty()) {
    std::string first = on_guest.front();
    return warn(
        "irq", state + "; " + irqs + " (e.g. IRQ " + first + ")",
        "topolab hook DOMAIN prepare  # moves them while the guest runs; or for each: echo " + hk +
            " > /proc/irq/N/smp_affinity_list");
  }
  return ok("irq", state + "; no IRQ affinity includes guest CPUs " + guest.to_string());
}

}  // namespace topolab::doctor
