#pragma once
// The `topolab host --json` shape, also what the guest agent reports in its hello:
// {"cpus":[{"id","online","package","die","core","l3","node","siblings"}],
//  "packages":[{"id","cpus"}], "dies":[{"id","package","die_id","cpus"}],
//  "l3_domains":[{"id","cpus","size_kib"}],
//  "numa_nodes":[{"id","cpus","memory_kib","hugepages":[{"page_kib","total","free"}]}],
//  "isolated":"8-15", "vendor", "model", "source"}
// CPU lists use list syntax ("0-3,8"). See docs/host-topology.md.
#include <nlohmann/json.hpp>

#include "common/result.hpp"
#include "host/host_topology.hpp"

namespace topolab {

nlohmann::json topology_to_json(const HostTopology&);

// Input may come from a guest: every field is type-checked, sizes and ids are bounded and
// cross references (die, l3 indexes) are checked. Errors name the JSON path, e.g.
// "topology JSON: cpus[3].siblings: expected a CPU list string, got 42".
Result<HostTopology> topology_from_json(const nlohmann::json&);

}  // namespace topolab
