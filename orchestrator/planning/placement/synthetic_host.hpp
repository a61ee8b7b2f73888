#pragma once
// Hand-made host descriptions for tests and benchmarks (e.g. a 2-socket 384-thread host):
// packages x L3 domains per package x cores per L3 x threads, one NUMA node per package or
// per L3 domain, Linux-style numbering (thread 0 of every core first, siblings n + cores) or
// adjacent siblings.
#include <cstdint>
#include <string>

#include "host/host_topology.hpp"

namespace topolab {

struct SyntheticHostSpec {
  int packages = 1;
  int l3_per_package = 1;
  int cores_per_l3 = 4;
  int threads = 1;
  bool adjacent_siblings = false;  // true: siblings n, n+1; false: n, n + total cores
  bool node_per_l3 = false;        // false: one NUMA node per package
  std::uint64_t node_memory_mib = 16384;
  bool with_l3 = true;  // false: the host reports no L3 at all
  std::string vendor = "AuthenticAMD";
};

HostTopology make_synthetic_host(const SyntheticHostSpec&);

}  // namespace topolab
