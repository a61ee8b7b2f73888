#pragma once
// One model of a machine's CPU topology, filled from libvirt capabilities or a sysfs tree,
// and also used for what a guest sees (the agent reads its own sysfs into it).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/cpu_list.hpp"

namespace topolab {

struct CpuInfo {
  int id = -1;
  bool online = true;
  int package = -1;  // physical package id as the source names it
  int die = -1;      // machine-wide unique die index (index into HostTopology::dies)
  int core = -1;     // machine-wide unique core index: one per SMT sibling set
  int l3 = -1;       // index into HostTopology::l3_domains, -1 when no L3
  int node = -1;     // NUMA node id, -1 when unknown
  CpuList siblings;  // SMT siblings including this CPU
};

struct Package {
  int id = -1;
  CpuList cpus;
};

struct Die {
  int id = -1;       // machine-wide unique index
  int package = -1;  // package id
  int die_id = 0;    // die id within the package as the source names it
  CpuList cpus;
};

struct L3Domain {
  int id = -1;  // machine-wide index in order of first CPU
  CpuList cpus;
  std::uint64_t size_kib = 0;  // 0 when unknown
};

struct HugepagePool {
  std::uint64_t page_kib = 0;
  std::uint64_t total = 0;
  std::uint64_t free = 0;
};

struct NumaNode {
  int id = -1;
  CpuList cpus;
  std::uint64_t memory_kib = 0;  // 0 when unknown or memoryless (see memoryless)
  std::vector<HugepagePool> hugepages;
  bool memoryless = false;     // the source says the node has no memory (MemTotal 0 kB)
  std::vector<int> distances;  // to numa_nodes[k], in that order; empty when unknown
};

inline constexpr std::size_t kMaxTopologyTextBytes = 512;

struct HostTopology {
  std::vector<CpuInfo> cpus;  // sorted by id; offline CPUs included with online=false
  std::vector<Package> packages;
  std::vector<Die> dies;
  std::vector<L3Domain> l3_domains;
  std::vector<NumaNode> numa_nodes;
  CpuList isolated;
  // vendor, model, source: display_text (printable UTF-8, at most kMaxTopologyTextBytes), made
  // so where every topology is built (build_topology, topology_from_json).
  std::string vendor;  // e.g. "AuthenticAMD", "" when unknown
  std::string model;   // e.g. "AMD EPYC 7451 24-Core Processor"
  std::string source;  // "sysfs:/", "caps:FILE", "libvirt:qemu:///system"

  CpuList online_cpus() const;
  CpuList all_cpus() const;
  const CpuInfo* cpu(int id) const;
  // SMT sibling sets, one per core, ordered by core index.
  std::vector<CpuList> cores() const;
  bool has_smt() const;
};

}  // namespace topolab
