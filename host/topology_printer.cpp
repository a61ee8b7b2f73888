#include "host/topology_printer.hpp"

#include <cstdio>
#include <map>
#include <string>

namespace topolab {
namespace {

std::string size_text(std::uint64_t kib) {
  if (kib == 0) return "size unknown";
  if (kib % (1024 * 1024) == 0) return std::to_string(kib / (1024 * 1024)) + " GiB";
  if (kib % 1024 == 0) return std::to_string(kib / 1024) + " MiB";
  if (kib >= 1024 * 1024) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.1f GiB (%llu KiB)", static_cast<double>(kib) / (1024 * 1024),
                  static_cast<unsigned long long>(kib));
    return buf;
  }
  return std::to_string(kib) + " KiB";
}

// Cores of `cpus`, each as "core N: CPUs", in core order.
void print_cores(std::ostream& out, const HostTopology& topo, const CpuList& cpus,
                 const std::string& indent) {
  std::map<int, CpuList> cores;
  for (int id : cpus) {
    const CpuInfo* c = topo.cpu(id);
    if (c != nullptr && c->online) cores[c->core].insert(id);
  }
  for (const auto& [core, members] : cores) {
    out << indent << "core " << core << ": CPU " << members.to_string() << "\n";
  }
}

void print_die(std::ostream& out, const HostTopology& topo, const Die& die) {
  out << "    die " << die.die_id << " (#" << die.id << "): CPU " << die.cpus.to_string() << "\n";
  CpuList rest = die.cpus;
  for (const auto& l3 : topo.l3_domains) {
    CpuList mine = l3.cpus.intersected(die.cpus);
    if (mine.empty()) continue;
    out << "      L3 #" << l3.id << " (" << size_text(l3.size_kib) << "): CPU "
        << l3.cpus.to_string();
    if (mine != l3.cpus) out << " (spans dies)";
    out << "\n";
    print_cores(out, topo, mine, "        ");
    rest = rest.minus(mine);
  }
  if (!rest.empty()) {
    out << "      no L3: CPU " << rest.to_string() << "\n";
    print_cores(out, topo, rest, "        ");
  }
}

void print_nodes(std::ostream& out, const HostTopology& topo) {
  if (topo.numa_nodes.empty()) {
    out << "NUMA nodes: unknown\n";
    return;
  }
  out << "NUMA nodes:\n";
  for (const auto& n : topo.numa_nodes) {
    out << "  node " << n.id << ": CPU " << (n.cpus.empty() ? "none" : n.cpus.to_string());
    if (n.memory_kib > 0) out << ", memory " << size_text(n.memory_kib);
    for (const auto& p : n.hugepages) {
      out << ", hugepages " << size_text(p.page_kib) << ": " << p.total << " total, " << p.free
          << " free";
    }
    out << "\n";
  }
}

}  // namespace

void print_topology_tree(std::ostream& out, const HostTopology& topo) {
  out << "source: " << (topo.source.empty() ? "unknown" : topo.source) << "\n";
  if (!topo.vendor.empty() || !topo.model.empty()) {
    out << "cpu: " << topo.vendor << (topo.vendor.empty() ? "" : " ") << topo.model << "\n";
  }
  CpuList online = topo.online_cpus();
  out << "CPUs: " << topo.cpus.size() << " (" << online.size() << " online: " << online.to_string()
      << "), cores: " << topo.cores().size() << ", packages: " << topo.packages.size()
      << ", dies: " << topo.dies.size() << ", L3 domains: " << topo.l3_domains.size()
      << ", NUMA nodes: " << topo.numa_nodes.size() << "\n";
  for (const auto& pkg : topo.packages) {
    out << "  package " << pkg.id << ": CPU " << pkg.cpus.to_string() << "\n";
    for (const auto& die : topo.dies) {
      if (die.package == pkg.id) print_die(out, topo, die);
    }
  }
  print_nodes(out, topo);
  out << "isolated CPUs: " << (topo.isolated.empty() ? "none" : topo.isolated.to_string()) << "\n";
  CpuList offline = topo.all_cpus().minus(online);
  if (!offline.empty()) out << "offline CPUs: " << offline.to_string() << "\n";
}

}  // namespace topolab
