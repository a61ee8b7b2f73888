#pragma once
// What a layout's exposure means, decided here and nowhere else: the topology QEMU announces
// (sockets/dies/cores/threads), whether each L3 group becomes a NUMA cell, and how the guest's
// L3 is shared. Also the one place that numbers vCPUs: QEMU counts threads fastest, then cores,
// dies, sockets; so vCPU v is in group v / (cores_per_group * threads_per_core), core
// (v / threads) % cores_per_group, thread v % threads.
#include <cstdint>
#include <vector>

#include "common/result.hpp"
#include "orchestrator/model/layout/layout.hpp"

namespace topolab {

struct GuestTopology {
  int sockets = 1, dies = 1, cores = 1, threads = 1;  // cores per die
  int vcpus() const { return sockets * dies * cores * threads; }
};

// Which CPUs of the guest share an L3.
enum class L3Sharing {
  kWholeGuest,  // one L3 for every vCPU (flat)
  kPerGroup,    // one per L3 group (each group is a socket or a die)
  // Groups are NUMA cells inside one socket: AMD-style models bound the LLC by the node (one L3
  // per cell); Intel-style models report CPUID-4 sharing across the whole socket (measured,
  // ../shared/docs/qemu-guest-topology.md).
  // (The same for flat groups inside two-level nodes.)
  kPerCellOnAmdPerSocketOnIntel,
};

struct ExposureMeaning {
  GuestTopology topology;
  // Guest NUMA cells: 0 for none. One level (`numa` exposure): each L3 group is a cell. Two
  // levels (layout.numa_nodes): the nodes are the cells, each holding groups_per_cell whole
  // groups in order, and every group is a QEMU die or socket (QEMU 7.2 shares L3 per die).
  int cells = 0;
  int groups_per_cell = 1;
  L3Sharing l3 = L3Sharing::kWholeGuest;
  bool numa_cells() const { return cells > 0; }
  int cell_of_group(int group) const { return cells > 0 ? group / groups_per_cell : 0; }
};

ExposureMeaning exposure_meaning(const Layout&);

// The cells' memory in KiB, splitting `total_kib` evenly over the cells that have memory
// (memoryless nodes get 0); with hugepages every cell is a whole number of pages. Refused
// (never rounded) when the total is not a whole number of units: rounding would change the
// guest's memory without saying so. Empty without cells.
Result<std::vector<std::uint64_t>> cell_memory_kib(const Layout&, std::uint64_t total_kib);

// A vCPU's place in the layout: its L3 group, the core within the group, the thread.
struct VcpuSlot {
  int group = 0, core = 0, thread = 0;
};
VcpuSlot vcpu_slot(const Layout&, int vcpu);
// Thread 0 of guest core `guest_core` (cores counted across groups).
VcpuSlot core_slot(const Layout&, int guest_core);
int vcpu_at(const Layout&, const VcpuSlot&);

}  // namespace topolab
