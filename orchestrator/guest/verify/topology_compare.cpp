#include "orchestrator/guest/verify/topology_compare.hpp"

#include <algorithm>
#include <iomanip>
#include <ostream>

namespace topolab {
namespace {

std::vector<CpuList> normalized(std::vector<CpuList> groups) {
  std::erase_if(groups, [](const CpuList& g) { return g.empty(); });
  std::sort(groups.begin(), groups.end());
  groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
  return groups;
}

template <typename Range>
std::vector<CpuList> cpu_sets_of(const Range& items) {
  std::vector<CpuList> out;
  for (const auto& item : items) out.push_back(item.cpus);
  return normalized(std::move(out));
}

std::vector<CpuList> smt_sets(const HostTopology& topo) {
  std::vector<CpuList> out;
  for (const auto& c : topo.cpus) {
    if (!c.online) continue;
    out.push_back(c.siblings.empty() ? CpuList{c.id} : c.siblings);
  }
  return normalized(std::move(out));
}

std::vector<CpuList> memoryless_sets(const HostTopology& topo) {
  std::vector<CpuList> out;
  for (const auto& n : topo.numa_nodes)
    if (n.memoryless) out.push_back(n.cpus);
  return normalized(std::move(out));
}

// "0-3: 10 16 | 4-7: 16 10" in node order; "" when any node's distances are unknown.
std::string distance_text(const HostTopology& topo) {
  std::string out;
  for (const auto& n : topo.numa_nodes) {
    if (n.distances.empty()) return "";
    out += (out.empty() ? "" : " | ") + n.cpus.to_string() + ":";
    for (int d : n.distances) out += " " + std::to_string(d);
  }
  return out;
}

}  // namespace

std::vector<TopologyLevel> topology_levels(const HostTopology& topo) {
  return {
      {"cpus", normalized({topo.online_cpus()})},
      {"packages", cpu_sets_of(topo.packages)},
      {"dies", cpu_sets_of(topo.dies)},
      {"l3_domains", cpu_sets_of(topo.l3_domains)},
      {"smt_siblings", smt_sets(topo)},
      {"numa_nodes", cpu_sets_of(topo.numa_nodes)},
      {"memoryless_nodes", memoryless_sets(topo)},
  };
}

std::string format_groups(const std::vector<CpuList>& groups) {
  if (groups.empty()) return "(none)";
  std::string out;
  for (const auto& g : groups) out += (out.empty() ? "" : " | ") + g.to_string();
  return out;
}

std::vector<TopologyMismatch> compare_topologies(const HostTopology& intended,
                                                 const HostTopology& seen) {
  auto want = topology_levels(intended);
  auto got = topology_levels(seen);
  std::vector<TopologyMismatch> out;
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (want[i].groups != got[i].groups) {
      out.push_back({want[i].level, format_groups(want[i].groups), format_groups(got[i].groups)});
    }
  }
  // Distances are compared when the intended topology states them (a layout's or the host's).
  const std::string want_d = distance_text(intended), got_d = distance_text(seen);
  if (!want_d.empty() && want_d != got_d)
    out.push_back({"numa_distances", want_d, got_d.empty() ? "(unknown)" : got_d});
  return out;
}

void print_topology_comparison(std::ostream& out, const HostTopology& intended,
                               const HostTopology& seen) {
  auto want = topology_levels(intended);
  auto got = topology_levels(seen);
  std::size_t w = std::string("intended").size();
  for (const auto& l : want) w = std::max(w, format_groups(l.groups).size());
  out << std::left << std::setw(14) << "level" << std::setw(static_cast<int>(w) + 2) << "intended"
      << "seen\n";
  for (std::size_t i = 0; i < want.size(); ++i) {
    bool same = want[i].groups == got[i].groups;
    out << std::setw(14) << want[i].level << std::setw(static_cast<int>(w) + 2)
        << format_groups(want[i].groups) << format_groups(got[i].groups)
        << (same ? "" : "   <-- MISMATCH") << "\n";
  }
  const std::string want_d = distance_text(intended), got_d = distance_text(seen);
  if (!want_d.empty()) {
    out << std::setw(14) << "numa_distances" << std::setw(static_cast<int>(w) + 2) << want_d
        << (got_d.empty() ? "(unknown)" : got_d) << (want_d == got_d ? "" : "   <-- MISMATCH")
        << "\n";
  }
}

}  // namespace topolab
