#pragma once
// Human-readable tree: package -> die -> L3 (size) -> cores -> CPUs, then NUMA nodes (memory,
// hugepages), isolated and offline CPUs.
#include <ostream>

#include "host/host_topology.hpp"

namespace topolab {

void print_topology_tree(std::ostream&, const HostTopology&);

}  // namespace topolab
