#include "orchestrator/planning/placement/synthetic_host.hpp"

#include <algorithm>

namespace topolab {

HostTopology make_synthetic_host(const SyntheticHostSpec& s) {
  HostTopology h;
  const int l3_total = s.packages * s.l3_per_package;
  const int cores_total = l3_total * s.cores_per_l3;
  const int cpus_total = cores_total * s.threads;
  h.cpus.resize(static_cast<std::size_t>(cpus_total));
  auto cpu_id = [&](int core, int t) {
    return s.adjacent_siblings ? core * s.threads + t : t * cores_total + core;
  };
  if (s.with_l3) h.l3_domains.resize(static_cast<std::size_t>(l3_total));
  h.packages.resize(static_cast<std::size_t>(s.packages));
  h.dies.resize(static_cast<std::size_t>(s.packages));
  const int nodes = s.node_per_l3 ? l3_total : s.packages;
  h.numa_nodes.resize(static_cast<std::size_t>(nodes));
  for (int core = 0; core < cores_total; ++core) {
    const int l3 = core / s.cores_per_l3;
    const int pkg = l3 / s.l3_per_package;
    const int node = s.node_per_l3 ? l3 : pkg;
    CpuList siblings;
    for (int t = 0; t < s.threads; ++t) siblings.insert(cpu_id(core, t));
    for (int t = 0; t < s.threads; ++t) {
      const int id = cpu_id(core, t);
      auto& c = h.cpus[static_cast<std::size_t>(id)];
      c.id = id;
      c.online = true;
      c.package = pkg;
      c.die = pkg;
      c.core = core;
      c.l3 = s.with_l3 ? l3 : -1;
      c.node = node;
      c.siblings = siblings;
      if (s.with_l3) h.l3_domains[static_cast<std::size_t>(l3)].cpus.insert(id);
      h.packages[static_cast<std::size_t>(pkg)].cpus.insert(id);
      h.dies[static_cast<std::size_t>(pkg)].cpus.insert(id);
      h.numa_nodes[static_cast<std::size_t>(node)].cpus.insert(id);
    }
  }
  for (int i = 0; i < l3_total && s.with_l3; ++i) {
    h.l3_domains[static_cast<std::size_t>(i)].id = i;
    h.l3_domains[static_cast<std::size_t>(i)].size_kib = 16384;
  }
  for (int p = 0; p < s.packages; ++p) {
    h.packages[static_cast<std::size_t>(p)].id = p;
    h.dies[static_cast<std::size_t>(p)].id = p;
    h.dies[static_cast<std::size_t>(p)].package = p;
  }
  for (int n = 0; n < nodes; ++n) {
    h.numa_nodes[static_cast<std::size_t>(n)].id = n;
    h.numa_nodes[static_cast<std::size_t>(n)].memory_kib = s.node_memory_mib * 1024;
  }
  h.vendor = s.vendor;
  h.model = "synthetic";
  h.source = "synthetic:" + std::to_string(s.packages) + "p" + std::to_string(s.l3_per_package) +
             "l3x" + std::to_string(s.cores_per_l3) + "c" + std::to_string(s.threads) + "t";
  return h;
}

}  // namespace topolab
