#include "orchestrator/hostprep/doctor/layout_requirements.hpp"

#include "orchestrator/hostprep/doctor/checks.hpp"
#include "orchestrator/libvirt/hostsource/host_source.hpp"
#include "orchestrator/model/layout/layout.hpp"
#include "orchestrator/planning/plan/guest_plan.hpp"

namespace topolab::doctor {
namespace {

// The host CPUs the layout's vCPUs run on. The placement plan on the host's own sysfs is the
// truth (never libvirt: the qemu hook must not call back into libvirtd); a layout that names
// its CPUs directly still works when the tree holds no topology.
Result<CpuList> guest_cpus_of(const Layout& layout, const std::string& root) {
  TopologySource source;
  source.sysfs = root;
  auto host = load_host_topology(source);
  Error why{""};
  if (host) {
    auto plan = plan::plan_guest(layout, {*host, std::nullopt, std::nullopt});
    if (plan) {
      CpuList cpus;
      for (const auto& v : plan->placement.vcpus) cpus = cpus.united(v.host_cpus);
      return cpus;
    }
    why = plan.error();
  } else {
    why = host.error();
  }
  if (layout.host_cpus) return *layout.host_cpus;
  CpuList cpus;
  for (const auto& l : layout.explicit_cpus) cpus = cpus.united(l);
  if (!cpus.empty()) return cpus;
  return why.context("host CPUs of layout " + layout.name);
}

}  // namespace

Result<GuestRequirements> load_guest_requirements(const RequirementsRequest& request) {
  GuestRequirements req;
  if (!request.layout_file.empty()) {
    TL_ASSIGN(auto layout, load_layout_or_preset(request.layout_file));
    req.name = layout.name;
    req.memory_mib = layout.memory_mib;
    req.hugepage_kib = layout.hugepage_kib;
    req.hugepages_locked = layout.hugepages_locked;
    req.threads_per_core = layout.threads_per_core;
    req.vcpus = layout.vcpu_count();
    req.sockets = guest_topology_for(layout).sockets;
    req.guest_os = layout.guest_os;
    if (layout.housekeeping_cpus) req.housekeeping_cpus = *layout.housekeeping_cpus;
    for (const auto& d : layout.hostdevs) req.hostdevs.push_back({d.pci_address, d.managed});
    if (request.guest_cpus.empty()) {
      // A layout that does not fit this host is a finding (doctor reports it), not an error.
      auto cpus = guest_cpus_of(layout, request.root);
      if (cpus) {
        req.guest_cpus = *cpus;
      } else {
        req.placement_error = cpus.error().message;
      }
    }
  }
  if (!request.guest_cpus.empty()) {
    TL_ASSIGN_CTX(auto cpus, CpuList::parse(request.guest_cpus), "--guest-cpus");
    req.guest_cpus = cpus;
    if (req.vcpus == 0) req.vcpus = static_cast<int>(cpus.size());
  }
  if (!request.guest_os.empty()) {
    TL_ASSIGN_CTX(req.guest_os, parse_guest_edition(request.guest_os), "--guest-os");
  }
  return req;
}

}  // namespace topolab::doctor
