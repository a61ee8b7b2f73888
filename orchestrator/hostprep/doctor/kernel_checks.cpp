// Host-wide kernel settings: IOMMU, transparent hugepages, SMT.
#include <cctype>

#include "orchestrator/hostprep/doctor/checks.hpp"

namespace topolab::doctor {

std::vector<CheckResult> check_iommu(const SysRoot& root, const GuestRequirements* req) {
  std::vector<CheckResult> results;
  auto units = root.list("/sys/class/iommu");
  std::vector<std::string> groups;
  for (const auto& g : root.list("/sys/kernel/iommu_groups")) {
    if (!g.empty() && std::isdigit(static_cast<unsigned char>(g.front()))) groups.push_back(g);
  }
  bool needed = req && !req->hostdevs.empty();
  if (groups.empty()) {
    std::string reason = "IOMMU off: /sys/kernel/iommu_groups is empty" +
                         std::string(units.empty() ? " and no /sys/class/iommu unit" : "");
    std::string fix =
        "enable VT-d/AMD-Vi in firmware; add intel_iommu=on iommu=pt (Intel) or amd_iommu=on "
        "iommu=pt (AMD) to GRUB_CMDLINE_LINUX in /etc/default/grub, update-grub, reboot";
    if (needed) {
      results.push_back(
          fail("iommu", reason + ": the layout's [[hostdev]] cannot be passed through", fix));
    } else {
      results.push_back(warn("iommu", reason + " (only needed for PCI passthrough)", fix));
    }
  } else {
    std::string unit_names;
    for (const auto& u : units) unit_names += (unit_names.empty() ? "" : ",") + u;
    results.push_back(ok("iommu", "IOMMU on: " + std::to_string(groups.size()) + " groups" +
                                      (units.empty() ? "" : ", units " + unit_names)));
  }
  if (req) {
    auto devs = hostdev::validate_hostdevs(root, req->hostdevs);
    results.insert(results.end(), devs.begin(), devs.end());
  }
  return results;
}

CheckResult check_thp(const SysRoot& root, const GuestRequirements* req) {
  auto enabled = root.attr_or_none("/sys/kernel/mm/transparent_hugepage/enabled");
  if (!enabled) return skip("thp", "no /sys/kernel/mm/transparent_hugepage (kernel without THP)");
  auto selected = [](const std::string& v) {
    auto open = v.find('['), close = v.find(']');
    if (open == std::string::npos || close == std::string::npos) return v;
    return v.substr(open + 1, close - open - 1);
  };
  std::string mode = selected(*enabled);
  auto defrag = root.attr_or_none("/sys/kernel/mm/transparent_hugepage/defrag");
  std::string state = "THP " + mode + (defrag ? ", defrag " + selected(*defrag) : "");
  bool hugetlb = req && req->hugepage_kib > 0;
  if (hugetlb) return ok("thp", state + " (guest memory uses hugetlbfs pages: THP not involved)");
  if (mode == "never") {
    return warn("thp",
                state +
                    ": guest RAM gets 4 KiB pages (more TLB misses), layout has no "
                    "hugepages",
                "echo madvise > /sys/kernel/mm/transparent_hugepage/enabled  # QEMU madvises "
                "guest RAM; or set [memory] hugepages in the layout");
  }
  return ok("thp", state + " (QEMU madvises guest RAM, so " + mode + " backs it with 2 MiB pages)");
}

CheckResult check_smt(const SysRoot& root, const GuestRequirements* req) {
  auto control = root.attr_or_none("/sys/devices/system/cpu/smt/control");
  auto active = root.attr_or_none("/sys/devices/system/cpu/smt/active");
  if (!control) return skip("smt", "no /sys/devices/system/cpu/smt/control (old kernel)");
  std::string state = "SMT control " + *control + (active ? ", active " + *active : "");
  bool smt_on = active ? *active == "1" : *control == "on";
  int threads = req ? req->threads_per_core : 1;
  if (threads > 1 && !smt_on) {
    return fail("smt",
                state + ": the layout gives the guest " + std::to_string(threads) +
                    " threads per core but the host runs no SMT siblings to back them",
                *control == "off" ? "echo on > /sys/devices/system/cpu/smt/control"
                                  : "set guest.threads_per_core = 1 in the layout");
  }
  if (req && threads == 1 && smt_on) {
    return ok("smt", state +
                         " (guest has 1 thread per core: placement keeps sibling threads "
                         "of its cores for the host or leaves them idle)");
  }
  return ok("smt", state);
}

}  // namespace topolab::doctor
