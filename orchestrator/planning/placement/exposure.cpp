#include "orchestrator/planning/placement/exposure.hpp"

namespace topolab {

namespace {

// Two levels: the nodes are the cells; the groups inside them keep their exposure: sockets,
// dies (for dies and numa), or flat (one die; the L3 as for one-level numa cells).
ExposureMeaning two_level_meaning(const Layout& l) {
  ExposureMeaning m;
  m.topology.threads = l.threads_per_core;
  m.topology.cores = l.cores_per_group;
  m.l3 = L3Sharing::kPerGroup;
  if (l.expose == Exposure::kSockets) {
    m.topology.sockets = l.l3_groups;
  } else if (l.expose == Exposure::kFlat) {
    m.topology.cores = l.l3_groups * l.cores_per_group;
    m.l3 = L3Sharing::kPerCellOnAmdPerSocketOnIntel;
  } else {
    m.topology.dies = l.l3_groups;
  }
  m.cells = l.numa_nodes;
  m.groups_per_cell = l.groups_per_node();
  return m;
}

}  // namespace

ExposureMeaning exposure_meaning(const Layout& l) {
  if (l.two_level()) return two_level_meaning(l);
  ExposureMeaning m;
  m.topology.threads = l.threads_per_core;
  switch (l.expose) {
    case Exposure::kFlat:
      m.topology.cores = l.l3_groups * l.cores_per_group;
      break;
    case Exposure::kNuma:
      m.topology.cores = l.l3_groups * l.cores_per_group;
      m.cells = l.l3_groups;
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

Result<std::vector<std::uint64_t>> cell_memory_kib(const Layout& l, std::uint64_t total_kib) {
  const ExposureMeaning m = exposure_meaning(l);
  const auto cells = static_cast<std::uint64_t>(m.cells);
  const std::uint64_t unit = l.hugepage_kib ? l.hugepage_kib : 1024;
  if (cells == 0) return std::vector<std::uint64_t>{};
  if (total_kib % unit != 0) {
    return make_error(ErrorKind::input,
                      "memory " + std::to_string(total_kib) + " KiB cannot be split into " +
                          std::to_string(cells) + " NUMA cells of whole " + std::to_string(unit) +
                          " KiB units (expected a multiple of " + std::to_string(unit) + " KiB)");
  }
  std::vector<int> with_memory;
  for (int c = 0; c < m.cells; ++c)
    if (!l.two_level() || l.node_has_memory(c)) with_memory.push_back(c);
  const std::uint64_t units = total_kib / unit, g = with_memory.size();
  // (Fewer units than cells leaves memory-less cells, which QEMU and Linux accept.)
  std::vector<std::uint64_t> out(cells, 0);
  for (std::uint64_t i = 0; i < g; ++i)
    out[static_cast<std::size_t>(with_memory[i])] = (units / g + (i < units % g ? 1 : 0)) * unit;
  return out;
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
