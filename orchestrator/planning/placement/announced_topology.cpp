#include "orchestrator/planning/placement/announced_topology.hpp"

#include <set>

namespace topolab {
namespace {

int l3_of(L3Sharing sharing, CpuVendorStyle style, int group, int cell, int package) {
  switch (sharing) {
    case L3Sharing::kWholeGuest:
      return 0;
    case L3Sharing::kPerGroup:
      return group;
    case L3Sharing::kPerCellOnAmdPerSocketOnIntel:
      return style == CpuVendorStyle::kAmd ? cell : package;
  }
  return 0;
}

AnnouncedVcpu announce_vcpu(const Layout& l, const GuestTopology& t, const ExposureMeaning& m,
                            CpuVendorStyle style, int v) {
  AnnouncedVcpu a;
  a.vcpu = v;
  a.thread = v % t.threads;
  a.core = v / t.threads;
  a.die = v / (t.threads * t.cores);
  a.package = v / (t.threads * t.cores * t.dies);
  a.group = vcpu_slot(l, v).group;
  a.cell = m.cell_of_group(a.group);
  a.l3 = l3_of(m.l3, style, a.group, a.cell, a.package);
  return a;
}

// The cells' distances: the layout's, else the host's behind them (the plan's), else none.
std::vector<int> cell_distances(const Layout& l, const PlacementPlan& plan, std::size_t cell) {
  if (!l.node_distances.empty()) return l.node_distances.at(cell);
  if (cell < plan.node_distances.size()) return plan.node_distances[cell];
  return {};
}

Result<void> refuse_memoryless_backing(const Layout& l, int cell) {
  if (l.hugepage_kib == 0) return {};
  return make_error(ErrorKind::input,
                    "layout '" + l.name + "': NUMA cell " + std::to_string(cell) +
                        " has no memory (a memoryless node, or fewer hugepages than cells), and "
                        "memoryless cells cannot use hugepages here: libvirt 9.0 backs hugepage "
                        "memory with one memory-backend per cell and QEMU 7.2 refuses a backend "
                        "of size 0 (expected memory.hugepages unset, no guest.memoryless_nodes, "
                        "or at least one page per cell)");
}

Result<void> announce_cells(AnnouncedTopology& a, const Layout& l, const ExposureMeaning& m) {
  const PlacementPlan& plan = a.placement;
  a.cells.resize(static_cast<std::size_t>(m.cells));
  for (std::size_t c = 0; c < a.cells.size(); ++c) {
    a.cells[c].id = static_cast<int>(c);
    if (c < plan.nodes.size())
      a.cells[c].host_node = plan.nodes[c].host_node;
    else if (!l.two_level() && c < plan.groups.size())  // a plan made without its cells
      a.cells[c].host_node = plan.groups[c].host_node;
    a.cells[c].distances = cell_distances(l, plan, c);
  }
  for (const auto& v : a.vcpus) a.cells[static_cast<std::size_t>(v.cell)].cpus.insert(v.vcpu);
  TL_TRY(split_cell_memory(a, l, l.memory_mib * 1024));
  for (const auto& c : a.cells) {
    if (c.memory_kib != 0) continue;
    TL_TRY(refuse_memoryless_backing(l, c.id));
    a.machine = kMemorylessMachine;
  }
  return {};
}

std::size_t distinct_l3(const std::vector<AnnouncedVcpu>& vcpus) {
  std::set<int> ids;
  for (const auto& v : vcpus) ids.insert(v.l3);
  return ids.size();
}

// NUMA cells inside one socket under an Intel-style model (Skylake-Server, TCG's default): the
// guest shares L3 per socket, not per cell (l3_of), so its L3 level is the model's, not the
// layout's. Decided here, from the announced vCPUs; the verifier and the reports only read it.
std::vector<AdjustedLevel> adjusted_levels(const ExposureMeaning& m, const AnnouncedTopology& a) {
  if (m.l3 != L3Sharing::kPerCellOnAmdPerSocketOnIntel) return {};
  const std::size_t l3s = distinct_l3(a.vcpus);
  if (static_cast<int>(l3s) == m.cells) return {};
  const std::string& model = a.cpu_model.model.empty() ? a.cpu_model.mode : a.cpu_model.model;
  return {{"l3_domains", "layout: one L3 per NUMA cell (" + std::to_string(m.cells) +
                             "), expected " + std::to_string(l3s) + ": " + model + " (" +
                             std::string(to_string(a.accel)) +
                             ") shares L3 per socket, not per cell"}};
}

}  // namespace

Result<void> split_cell_memory(AnnouncedTopology& a, const Layout& l, std::uint64_t total_kib) {
  if (a.cells.empty()) return {};
  TL_ASSIGN_CTX(auto sizes, cell_memory_kib(l, total_kib), "layout '" + l.name + "'");
  for (std::size_t i = 0; i < a.cells.size(); ++i) a.cells[i].memory_kib = sizes[i];
  return {};
}

nlohmann::json adjusted_levels_to_json(const std::vector<AdjustedLevel>& levels) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& a : levels) out.push_back({{"level", a.level}, {"why", a.why}});
  return out;
}

nlohmann::json cpu_model_to_json(const CpuModelChoice& m) {
  return {{"mode", m.mode}, {"model", m.model}, {"cache_mode", m.cache_mode}, {"reason", m.reason}};
}

Result<AnnouncedTopology> announce_topology(const Layout& l, const PlacementPlan& plan,
                                            Accelerator accel, const std::string& host_vendor) {
  if (static_cast<int>(plan.vcpus.size()) != l.vcpu_count() ||
      plan.topology.vcpus() != l.vcpu_count()) {
    return make_error(ErrorKind::internal,
                      "placement plan has " + std::to_string(plan.vcpus.size()) +
                          " vCPUs and topology product " + std::to_string(plan.topology.vcpus()) +
                          ", layout '" + l.name + "' has " + std::to_string(l.vcpu_count()) +
                          " (expected a plan made for this layout)");
  }
  // QEMU has no host CPU model under TCG ("-cpu host" needs KVM): the domain would never start
  // (issue 32), so it is refused here, where the accelerator is known.
  if (accel == Accelerator::kTcg && l.cpu_model == "host-passthrough")
    return make_error(ErrorKind::input,
                      "cpu.model host-passthrough: QEMU cannot start it under TCG (it needs "
                      "KVM); use --accel kvm on a KVM host, or name a model (e.g. "
                      "cpu.model=Skylake-Server)");
  const ExposureMeaning meaning = exposure_meaning(l);
  AnnouncedTopology a;
  a.layout_name = l.name;
  a.placement = plan;
  a.accel = accel;
  a.cpu_model = choose_cpu_model(l, accel, host_vendor);
  for (int v = 0; v < l.vcpu_count(); ++v) {
    a.vcpus.push_back(announce_vcpu(l, plan.topology, meaning, a.cpu_model.style, v));
  }
  if (meaning.numa_cells()) TL_TRY(announce_cells(a, l, meaning));
  a.adjusted_levels = adjusted_levels(meaning, a);
  return a;
}

}  // namespace topolab
