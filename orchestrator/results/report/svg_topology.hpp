#pragma once
// Topology pictures of the HTML report, lstopo style:
//  - placement_svg: the host's packages and L3 domains as boxes with every host CPU in them,
//    the vCPUs pinned there coloured by guest group, emulator CPUs marked, and the float set of
//    an unpinned guest shaded;
//  - seen_topology_svg: packages / dies / L3 / cores / CPUs as the guest reported them.
// Both are bounded whatever the topology says (a store may name 8192 CPUs): at most
// kMaxDrawnDomains boxes of kMaxDrawnCpusPerDomain CPUs, the rest counted in a note.
#include <cstddef>
#include <ostream>

#include "host/host_topology.hpp"
#include "orchestrator/results/report/stored_placement.hpp"

namespace topolab::report::svg {

inline constexpr std::size_t kMaxDrawnDomains = 16;
inline constexpr std::size_t kMaxDrawnCpusPerDomain = 32;
inline constexpr std::size_t kMaxDrawnGroups = 10;  // legend entries

void placement_svg(std::ostream& o, const HostTopology& host, const StoredPlacement& plan);
void seen_topology_svg(std::ostream& o, const HostTopology& seen);

}  // namespace topolab::report::svg
