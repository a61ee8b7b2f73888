#pragma once
// Intended vs seen topology, level by level. Each level is a set of CPU lists (ids of packages,
// dies, caches and nodes are ignored: only which CPUs belong together counts). One routine
// serves a host (model vs sysfs) and a guest (intended_guest_topology vs the agent's hello).
#include <iosfwd>
#include <string>
#include <vector>

#include "common/cpu_list.hpp"
#include "host/host_topology.hpp"

namespace topolab {

struct TopologyMismatch {
  std::string level, intended, seen;
};

// The compared levels, in order: "cpus" (online CPUs), "packages", "dies", "l3_domains",
// "smt_siblings", "numa_nodes", "memoryless_nodes"; then "numa_distances" when the intended
// topology states distances.
struct TopologyLevel {
  std::string level;
  std::vector<CpuList> groups;  // sorted, unique
};
std::vector<TopologyLevel> topology_levels(const HostTopology& topo);
// "0-7 | 8-15"; "(none)" for an empty level.
std::string format_groups(const std::vector<CpuList>& groups);

std::vector<TopologyMismatch> compare_topologies(const HostTopology& intended,
                                                 const HostTopology& seen);

// A side-by-side table (level, intended, seen, ok/MISMATCH) for terminals.
void print_topology_comparison(std::ostream& out, const HostTopology& intended,
                               const HostTopology& seen);

}  // namespace topolab
