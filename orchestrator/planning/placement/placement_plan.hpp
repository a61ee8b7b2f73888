#pragma once
// Maps every vCPU of a Layout onto host CPUs (vCPU numbering and the exposure's meaning:
// exposure.hpp). What the guest is then told, with the CPU model, is announce_topology()'s
// AnnouncedTopology (announced_topology.hpp), made from this plan once per domain.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/cpu_list.hpp"
#include "common/result.hpp"
#include "host/host_topology.hpp"
#include "orchestrator/model/layout/layout.hpp"
#include "orchestrator/planning/placement/exposure.hpp"

namespace topolab {

struct VcpuPlacement {
  int vcpu = 0;
  CpuList host_cpus;  // one CPU when pinned; the whole float set when unpinned
  int group = 0;
  int core = 0;  // core within the group
  int thread = 0;
};

struct GroupPlacement {
  int group = 0;
  int host_l3 = -1;  // index into HostTopology::l3_domains; -1 when the group spans several/none
  CpuList host_cpus;
  int host_node = -1;  // NUMA node holding the group's CPUs, -1 when mixed/unknown
};

// A guest NUMA cell (a two-level node, or a group under one-level `numa`) and the host node
// behind it.
struct NodePlacement {
  int node = 0;
  std::vector<int> groups;  // the layout's L3 groups in it
  int host_node = -1;       // the one host node holding all its CPUs; -1 when mixed/unknown
};

struct PlacementPlan {
  std::vector<VcpuPlacement> vcpus;
  std::vector<GroupPlacement> groups;
  GuestTopology topology;
  CpuList emulator_cpus, iothread_cpus;
  bool pinned = true;                // false for the unpinned policy: no vcpupin
  CpuList memory_nodes;              // host NUMA nodes for <numatune>; empty: no numatune
  bool memory_strict = true;         // numatune mode strict (else preferred)
  std::vector<NodePlacement> nodes;  // one per guest cell; empty when the guest has no cells
  // The host's distances between the nodes behind the guest's (each cell on its own host node);
  // empty when they are not known. The default for a layout without node_distances.
  std::vector<std::vector<int>> node_distances;
  std::vector<std::string> warnings;
  std::vector<std::string> notes;  // informational (e.g. where emulator threads went and why)
};

// The guest topology an exposure announces for a layout (independent of the host):
// exposure_meaning(layout).topology.
GuestTopology guest_topology_for(const Layout&);

Result<PlacementPlan> plan_placement(const Layout&, const HostTopology&);
nlohmann::json plan_to_json(const PlacementPlan&);

}  // namespace topolab
