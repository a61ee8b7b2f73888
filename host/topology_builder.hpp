#pragma once
// The one place where raw per-CPU facts (from sysfs, libvirt capabilities, ...) become a
// HostTopology, so every source applies the same rules: a core is a connected set of SMT
// siblings, dies and L3 domains are numbered machine-wide, offline CPUs belong to nothing.
#include <cstdint>
#include <string>
#include <vector>

#include "common/cpu_list.hpp"
#include "common/result.hpp"
#include "host/host_topology.hpp"

namespace topolab {

struct RawCpu {
  int id = -1;
  bool online = true;
  int package = -1;  // physical package id as the source names it
  int die_id = 0;    // die id within the package, 0 when the source has none
  CpuList siblings;  // SMT siblings as the source names them (may include offline CPUs)
};

struct RawCache {
  CpuList cpus;  // CPUs sharing this cache as the source names them
  std::uint64_t size_kib = 0;
};

struct RawTopology {
  std::vector<RawCpu> cpus;
  std::vector<RawCache> l3;          // duplicates welcome: deduplicated by CPU set
  std::vector<NumaNode> numa_nodes;  // cpus as the source names them
  CpuList isolated;
  std::string vendor, model, source;
};

// Limits that keep hostile input (guest-sent JSON, junk trees) from exhausting memory: no more
// CPUs than there are CPU ids (common/cpu_list.hpp).
inline constexpr int kMaxTopologyCpus = kMaxCpuIds;

// Bounds on what a host source may claim (issue 32): a size past them is junk or a wrapped
// number, refused by build_topology rather than printed. 4 PiB of memory per node, 16 GiB pages
// (the largest any architecture has), a 1 TiB L3, ids (package, die, node) up to 2^20.
inline constexpr std::uint64_t kMaxNodeMemoryKib = std::uint64_t{1} << 42;
inline constexpr std::uint64_t kMaxHugepageKib = std::uint64_t{16} << 20;
inline constexpr std::uint64_t kMaxL3Kib = std::uint64_t{1} << 30;
inline constexpr int kMaxSourceId = 1 << 20;

// Error messages are one line: control characters from junk input become '?', and very long
// messages are cut.
Error one_line(const Error& error);

// Errors: no CPUs, duplicate CPU or node ids, too many CPUs, sizes or ids past the bounds above.
Result<HostTopology> build_topology(RawTopology raw);

}  // namespace topolab
