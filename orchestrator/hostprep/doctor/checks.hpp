#pragma once
// The individual doctor checks. Each reads only under the given root (see SysRoot); the guest
// requirements are null when no layout was given, and checks that need them then report the
// host state alone (or skip).
#include <string>
#include <vector>

#include "orchestrator/hostprep/doctor/guest_requirements.hpp"
#include "orchestrator/hostprep/hostcheck/check.hpp"
#include "orchestrator/hostprep/hostcheck/sys_root.hpp"

namespace topolab::doctor {

// libvirt reachable, library/daemon/QEMU versions, whether it offers domain type kvm (live).
CheckResult check_libvirt(const std::string& connect_uri);
// /dev/kvm present and usable: kvm modules, vmx/svm, nested (running inside a VM), the cached
// accelerator verdict (/var/cache/topolab/accel.json) and, live only, KVM_GET_API_VERSION.
CheckResult check_kvm(const SysRoot&);
// IOMMU on, plus one result per [[hostdev]] (see hostdev_validator.hpp).
std::vector<CheckResult> check_iommu(const SysRoot&, const GuestRequirements*);
// isolcpus / nohz_full / isolated / cgroup AllowedCPUs vs the guest's host CPUs.
CheckResult check_isolated_cpus(const SysRoot&, const GuestRequirements*);
// Free hugepages of the layout's size on the guest's NUMA nodes vs its memory.
CheckResult check_hugepages(const SysRoot&, const GuestRequirements*);
// One hugepage pool of the layout's page size: per NUMA node, or machine-wide (node -1).
struct NodePool {
  int node = -1;
  std::uint64_t total = 0, free = 0;
  bool guest_node = true;  // the node holds guest CPUs (or they are unknown)
};
// The verdict on pools of guest.hugepage_kib (> 0): ok, warn (only on other nodes) or fail.
CheckResult hugepage_verdict(const std::vector<NodePool>& pools, const GuestRequirements& guest);
// The same check through a remote connection: totals from the capabilities, free counts from
// virNodeGetFreePages (libvirt's API for them), per NUMA node of that host.
CheckResult check_hugepages_remote(const std::string& connect_uri, const GuestRequirements*);
// scaling_governor and boost of the guest's CPUs.
CheckResult check_cpufreq(const SysRoot&, const GuestRequirements*);
// irqbalance running, and IRQs whose affinity includes guest CPUs.
CheckResult check_irq_affinity(const SysRoot&, const GuestRequirements*);
CheckResult check_thp(const SysRoot&, const GuestRequirements*);
CheckResult check_smt(const SysRoot&, const GuestRequirements*);
// Sockets announced to the guest vs what its OS edition uses.
CheckResult check_exposure(const GuestRequirements*);

// Parsed kernel isolation parameters.
struct KernelIsolation {
  CpuList isolcpus, nohz_full, sysfs_isolated;
  std::vector<std::string> isolcpus_flags;  // "domain", "managed_irq", ...
};
KernelIsolation read_kernel_isolation(const SysRoot&);
// isolcpus=[flag,...,]list -> flags and list.
Result<std::pair<std::vector<std::string>, CpuList>> parse_isolcpus(const std::string& value);

// Where a cgroup v2 hierarchy can be mounted: "/sys/fs/cgroup", "/sys/fs/cgroup/unified".
const std::vector<std::string>& cgroup2_mount_candidates();
// The cgroup v2 folder that holds the systemd slices under root, or none (v1 or no systemd):
// /sys/fs/cgroup when it is the unified hierarchy, /sys/fs/cgroup/unified on hybrid setups.
std::optional<std::string> cgroup2_mount(const SysRoot&);
// "system.slice", "user.slice", "init.scope": the cgroups dynamic isolation narrows.
const std::vector<std::string>& host_slices();

}  // namespace topolab::doctor
