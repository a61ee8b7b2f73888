#pragma once
// What a correct guest should report for an announced topology (guest CPU ids = vCPU ids), in
// the host model, so one comparison routine serves host and guest. Every fact is read from the
// AnnouncedTopology the domain XML was written from (packages, dies, cores, L3 and NUMA cell
// per vCPU); nothing is derived from the layout again. Without cells the guest has node 0 with
// every CPU (the kernel's fake node when the firmware has no SRAT). Memory and L3 sizes are 0
// (not predicted).
#include "host/host_topology.hpp"
#include "orchestrator/planning/placement/announced_topology.hpp"

namespace topolab {

HostTopology intended_guest_topology(const AnnouncedTopology&);

}  // namespace topolab
