#include "orchestrator/domain/intended_topology.hpp"

#include <map>

namespace topolab {

HostTopology intended_guest_topology(const Layout& layout, const PlacementPlan& plan) {
  return intended_guest_topology(layout, plan, vendor_style_of_model(layout.cpu_model));
}

HostTopology intended_guest_topology(const Layout& layout, const PlacementPlan& plan,
                                     CpuVendorStyle style) {
  const GuestTopology t = plan.topology;
  const int n = t.vcpus();
  const int per_group = layout.cores_per_group * t.threads;
  HostTopology g;
  g.source = "intended:" + layout.name;
  g.packages.resize(static_cast<std::size_t>(t.sockets));
  g.dies.resize(static_cast<std::size_t>(t.sockets * t.dies));
  std::map<int, CpuList> l3s;
  std::map<int, CpuList> nodes;
  for (int v = 0; v < n; ++v) {
    CpuInfo c;
    c.id = v;
    c.core = v / t.threads;
    c.die = v / (t.threads * t.cores);
    c.package = v / (t.threads * t.cores * t.dies);
    const int first = c.core * t.threads;
    c.siblings = CpuList::range(first, first + t.threads - 1);
    const int group = per_group > 0 ? v / per_group : 0;
    switch (layout.expose) {
      case Exposure::kFlat:
        c.l3 = 0;
        break;
      case Exposure::kSockets:
      case Exposure::kDies:
        c.l3 = group;
        break;
      // AMD-style models: the kernel bounds the LLC mask by the NUMA node, so L3 follows the
      // cells; Intel-style models report CPUID-4 sharing across the whole socket.
      case Exposure::kNuma:
        c.l3 = style == CpuVendorStyle::kAmd ? group : c.package;
        break;
    }
    c.node = layout.expose == Exposure::kNuma ? group : 0;
    l3s[c.l3].insert(v);
    nodes[c.node].insert(v);
    auto& pkg = g.packages[static_cast<std::size_t>(c.package)];
    pkg.id = c.package;
    pkg.cpus.insert(v);
    auto& die = g.dies[static_cast<std::size_t>(c.die)];
    die.id = c.die;
    die.package = c.package;
    die.die_id = c.die % t.dies;
    die.cpus.insert(v);
    g.cpus.push_back(c);
  }
  for (auto& [id, cpus] : l3s) g.l3_domains.push_back({id, cpus, 0});
  for (auto& [id, cpus] : nodes) g.numa_nodes.push_back({id, cpus, 0, {}});
  return g;
}

}  // namespace topolab
