#pragma once
// Everything a guest is told, and where each of its vCPUs lives, decided once per domain:
// the announced sockets/dies/cores/threads, each vCPU's group, core, L3 and NUMA cell, the
// cells' CPUs and memory with their host nodes, the CPU model, and the placement plan (host
// CPUs, emulator/I/O threads, numatune). The domain XML writer, the patcher and the intended
// guest topology (what `verify` expects) only read it, so writer and verifier cannot disagree.
#include <cstdint>
#include <string>
#include <vector>

#include "common/cpu_list.hpp"
#include "common/result.hpp"
#include "orchestrator/model/layout/layout.hpp"
#include "orchestrator/planning/placement/cpu_model.hpp"
#include "orchestrator/planning/placement/placement_plan.hpp"

namespace topolab {

// One vCPU as the guest sees it. Ids are guest-wide: core and die count across the whole guest
// (QEMU numbering: threads fastest, then cores, dies, sockets).
struct AnnouncedVcpu {
  int vcpu = 0;
  int package = 0, die = 0, core = 0, thread = 0;
  int group = 0;  // the layout's L3 group
  int l3 = 0;     // guest L3 domain id
  int cell = 0;   // guest NUMA node (0 when the guest has no cells)
};

struct AnnouncedCell {
  int id = 0;
  CpuList cpus;  // guest vCPUs of the cell
  std::uint64_t memory_kib = 0;
  int host_node = -1;          // host NUMA node backing it (<memnode>); -1: none
  std::vector<int> distances;  // to every cell, in cell order; empty: libvirt's default
};

// libvirt 9.0 backs every cell with a memory-backend-ram object on the current machine types,
// and QEMU 7.2 refuses one of size 0; only machine types up to pc-q35-5.0 take the legacy
// `-numa node,mem=` that allows a memoryless cell (libvirt's qemu capabilities mark them
// numaMemSupported). Measured here, docs/layouts.md.
inline constexpr const char* kMemorylessMachine = "pc-q35-5.0";

// A level whose expectation follows the CPU model instead of the layout (issue 33): the guest is
// verified against what the model can show, and boot output and reports say so.
struct AdjustedLevel {
  std::string level;  // topology_compare's level name, e.g. "l3_domains"
  std::string why;    // one line: the layout's intention, the expectation, the model's rule
};

struct AnnouncedTopology {
  std::string layout_name;
  std::vector<AnnouncedVcpu> vcpus;       // indexed by vCPU
  std::vector<AnnouncedCell> cells;       // empty: no <numa>; the guest has one (fake) node 0
  Accelerator accel = Accelerator::kTcg;  // the CPU model was chosen for it
  CpuModelChoice cpu_model;
  PlacementPlan placement;  // placement.topology is the announced sockets/dies/cores/threads
  // Set when a cell has no memory: the machine type to use (kMemorylessMachine); then no
  // <memnode> either (a memnode makes libvirt use memory backends again).
  std::string machine;
  bool memoryless_cells() const { return !machine.empty(); }

  std::vector<AdjustedLevel> adjusted_levels;  // empty: every level is the layout's own
  const GuestTopology& topology() const { return placement.topology; }
};

// The cells split the layout's memory_mib. Refused when the plan was not made for this layout,
// or the memory cannot be split into whole cells (hugepages).
Result<AnnouncedTopology> announce_topology(const Layout&, const PlacementPlan&, Accelerator,
                                            const std::string& host_vendor);

// [{"level","why"}]: the levels verified against the CPU model's expectation rather than the
// layout's; boot JSON, the store's boot context and the stored plan keep this form.
nlohmann::json adjusted_levels_to_json(const std::vector<AdjustedLevel>&);
// {"mode","model","cache_mode","reason"}: the CPU model as the store's boot context and the
// stored plan keep it.
nlohmann::json cpu_model_to_json(const CpuModelChoice&);

// Re-splits the cells' memory over `total_kib` (`apply` keeps a domain's own <memory>: libvirt
// sets <memory> to the sum of the cells). No-op without cells.
Result<void> split_cell_memory(AnnouncedTopology&, const Layout&, std::uint64_t total_kib);

}  // namespace topolab
