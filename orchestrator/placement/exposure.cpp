#include "orchestrator/placement/exposure.hpp"

namespace topolab {

ExposureMeaning exposure_meaning(const Layout& l) {
  ExposureMeaning m;
  m.topology.threads = l.threads_per_core;
  switch (l.expose) {
    case Exposure::kFlat:
      m.topology.cores = l.l3_groups * l.cores_per_group;
      break;
    case Exposure::kNuma:
      m.topology.cores = l.l3_groups * l.cores_per_group;
      m.numa_cells = true;
      m.l3 = L3Sharing::kPerCellOnAmdPerSocketOnIntel;
      break;
    case Exposure::kSockets:
      m.topology.sockets = l.l3_groups, m.topology.cores = l.cores_per_group;
      m.l3 = L3Sharing::kPerGroup;
      break;
    case Exposure::kDies:
      m.topology.dies = l.l3_groups, m.topology.cores = l.cores_per_group;
      m.l3 = L3Sharing::kPerGroup;
      break;
  }
  return m;
}

VcpuSlot core_slot(const Layout& l, int guest_core) {
  return {guest_core / l.cores_per_group, guest_core % l.cores_per_group, 0};
}

VcpuSlot vcpu_slot(const Layout& l, int vcpu) {
  VcpuSlot s = core_slot(l, vcpu / l.threads_per_core);
  s.thread = vcpu % l.threads_per_core;
  return s;
}

int vcpu_at(const Layout& l, const VcpuSlot& s) {
  return (s.group * l.cores_per_group + s.core) * l.threads_per_core + s.thread;
}

}  // namespace topolab
