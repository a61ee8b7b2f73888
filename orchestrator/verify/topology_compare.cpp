#include "orchestrator/verify/topology_compare.hpp"

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

}  // namespace

std::vector<TopologyLevel> topology_levels(const HostTopology& topo) {
  return {
      {"cpus", normalized({topo.online_cpus()})}, {"packages", cpu_sets_of(topo.packages)},
      {"dies", cpu_sets_of(topo.dies)},           {"l3_domains", cpu_sets_of(topo.l3_domains)},
      {"smt_siblings", smt_sets(topo)},           {"numa_nodes", cpu_sets_of(topo.numa_nodes)},
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
}

}  // namespace topolab
