#include "orchestrator/planning/domain/intended_topology.hpp"

#include <map>

namespace topolab {

HostTopology intended_guest_topology(const AnnouncedTopology& a) {
  const GuestTopology& t = a.topology();
  HostTopology g;
  g.source = "intended:" + a.layout_name;
  g.packages.resize(static_cast<std::size_t>(t.sockets));
  g.dies.resize(static_cast<std::size_t>(t.sockets * t.dies));
  std::map<int, CpuList> l3s, nodes, cores;
  for (const auto& v : a.vcpus) cores[v.core].insert(v.vcpu);
  for (const auto& v : a.vcpus) {
    CpuInfo c;
    c.id = v.vcpu;
    c.core = v.core;
    c.die = v.die;
    c.package = v.package;
    c.siblings = cores[v.core];
    c.l3 = v.l3;
    c.node = v.cell;
    l3s[c.l3].insert(c.id);
    nodes[c.node].insert(c.id);
    auto& pkg = g.packages.at(static_cast<std::size_t>(c.package));
    pkg.id = c.package;
    pkg.cpus.insert(c.id);
    auto& die = g.dies.at(static_cast<std::size_t>(c.die));
    die.id = c.die;
    die.package = c.package;
    die.die_id = c.die % t.dies;
    die.cpus.insert(c.id);
    g.cpus.push_back(c);
  }
  for (auto& [id, cpus] : l3s) g.l3_domains.push_back({id, cpus, 0});
  for (auto& [id, cpus] : nodes) {
    NumaNode n;
    n.id = id;
    n.cpus = cpus;
    // Memory sizes are not predicted (the guest kernel reserves some); having none is.
    if (static_cast<std::size_t>(id) < a.cells.size()) {
      const auto& cell = a.cells[static_cast<std::size_t>(id)];
      n.memoryless = cell.memory_kib == 0;
      n.distances = cell.distances;
    }
    g.numa_nodes.push_back(std::move(n));
  }
  return g;
}

}  // namespace topolab
