#include "orchestrator/placement/announced_topology.hpp"

#include <set>

namespace topolab {
namespace {

// Cell sizes in KiB splitting `total_kib`; with hugepages every cell is a whole number of pages.
// Refused (never rounded) when the total is not a whole number of units: rounding would change
// the guest's memory without saying so. (Fewer units than cells leaves memory-less cells, which
// QEMU and Linux accept.)
Result<std::vector<std::uint64_t>> cell_sizes_kib(const Layout& l, std::size_t cells,
                                                  std::uint64_t total_kib) {
  const std::uint64_t unit = l.hugepage_kib ? l.hugepage_kib : 1024;
  const auto g = static_cast<std::uint64_t>(cells);
  if (total_kib % unit != 0) {
    return make_error("memory " + std::to_string(total_kib) + " KiB cannot be split into " +
                      std::to_string(g) + " NUMA cells of whole " + std::to_string(unit) +
                      " KiB units (expected a multiple of " + std::to_string(unit) + " KiB)");
  }
  const std::uint64_t units = total_kib / unit;
  std::vector<std::uint64_t> out;
  for (std::uint64_t i = 0; i < g; ++i) {
    std::uint64_t u = units / g + (i < units % g ? 1 : 0);
    out.push_back(u * unit);
  }
  return out;
}

int l3_of(L3Sharing sharing, CpuVendorStyle style, int group, int package) {
  switch (sharing) {
    case L3Sharing::kWholeGuest:
      return 0;
    case L3Sharing::kPerGroup:
      return group;
    case L3Sharing::kPerCellOnAmdPerSocketOnIntel:
      return style == CpuVendorStyle::kAmd ? group : package;
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
  a.l3 = l3_of(m.l3, style, a.group, a.package);
  a.cell = m.numa_cells ? a.group : 0;
  return a;
}

std::size_t distinct_l3(const std::vector<AnnouncedVcpu>& vcpus) {
  std::set<int> ids;
  for (const auto& v : vcpus) ids.insert(v.l3);
  return ids.size();
}

// NUMA cells inside one socket under an Intel-style model (Skylake-Server, TCG's default): the
// guest shares L3 per socket, not per cell (l3_of), so its L3 level is the model's, not the
// layout's. Decided here, from the announced vCPUs; the verifier and the reports only read it.
std::vector<AdjustedLevel> adjusted_levels(const Layout& l, const ExposureMeaning& m,
                                           const AnnouncedTopology& a) {
  if (m.l3 != L3Sharing::kPerCellOnAmdPerSocketOnIntel) return {};
  const std::size_t l3s = distinct_l3(a.vcpus);
  if (static_cast<int>(l3s) == l.l3_groups) return {};
  const std::string& model = a.cpu_model.model.empty() ? a.cpu_model.mode : a.cpu_model.model;
  return {{"l3_domains", "layout: one L3 per NUMA cell (" + std::to_string(l.l3_groups) +
                             "), expected " + std::to_string(l3s) + ": " + model + " (" +
                             std::string(to_string(a.accel)) +
                             ") shares L3 per socket, not per cell"}};
}

}  // namespace

Result<void> split_cell_memory(AnnouncedTopology& a, const Layout& l, std::uint64_t total_kib) {
  if (a.cells.empty()) return {};
  TL_ASSIGN_CTX(auto sizes, cell_sizes_kib(l, a.cells.size(), total_kib),
                "layout '" + l.name + "'");
  for (std::size_t i = 0; i < a.cells.size(); ++i) a.cells[i].memory_kib = sizes[i];
  return {};
}

Result<AnnouncedTopology> announce_topology(const Layout& l, const PlacementPlan& plan,
                                            Accelerator accel, const std::string& host_vendor) {
  if (static_cast<int>(plan.vcpus.size()) != l.vcpu_count() ||
      plan.topology.vcpus() != l.vcpu_count()) {
    return make_error("placement plan has " + std::to_string(plan.vcpus.size()) +
                      " vCPUs and topology product " + std::to_string(plan.topology.vcpus()) +
                      ", layout '" + l.name + "' has " + std::to_string(l.vcpu_count()) +
                      " (expected a plan made for this layout)");
  }
  const ExposureMeaning meaning = exposure_meaning(l);
  AnnouncedTopology a;
  a.layout_name = l.name;
  a.placement = plan;
  a.accel = accel;
  a.cpu_model = choose_cpu_model(l, accel, host_vendor);
  for (int v = 0; v < l.vcpu_count(); ++v) {
    a.vcpus.push_back(announce_vcpu(l, plan.topology, meaning, a.cpu_model.style, v));
  }
  if (meaning.numa_cells) {
    a.cells.resize(static_cast<std::size_t>(l.l3_groups));
    for (std::size_t g = 0; g < a.cells.size(); ++g) {
      a.cells[g].id = static_cast<int>(g);
      if (g < plan.groups.size()) a.cells[g].host_node = plan.groups[g].host_node;
    }
    for (const auto& v : a.vcpus) a.cells[static_cast<std::size_t>(v.cell)].cpus.insert(v.vcpu);
    TL_TRY(split_cell_memory(a, l, l.memory_mib * 1024));
  }
  a.adjusted_levels = adjusted_levels(l, meaning, a);
  return a;
}

}  // namespace topolab
