#pragma once
// The host as the planner sees it: usable CPUs grouped into whole host cores, by L3 domain.
#include <string>
#include <vector>

#include "common/cpu_list.hpp"
#include "host/host_topology.hpp"
#include "orchestrator/model/layout/layout.hpp"

namespace topolab::placement {

struct HostCore {
  CpuList cpus;   // the core's usable SMT siblings (within host_cpus, online, not housekeeping)
  CpuList all;    // every online sibling of the core
  int l3 = -1;    // index into HostTopology::l3_domains
  int node = -1;  // NUMA node id
  int package = -1;
};

struct UsableHost {
  CpuList allowed;              // host_cpus (or every online CPU) minus housekeeping, online only
  std::string allowed_text;     // "within 8-15" or "" when the whole host is allowed
  std::vector<HostCore> cores;  // ordered by first CPU
  std::vector<std::string> warnings;
};

Result<UsableHost> usable_host(const Layout&, const HostTopology&);

}  // namespace topolab::placement
