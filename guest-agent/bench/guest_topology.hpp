#pragma once
// The guest-seen topology as the benchmarks use it: CPU pair classes for c2c/migration, and
// the OS's own report for CLI runs (no BenchContext topology).
#include <nlohmann/json.hpp>
#include <string>

#include "guest-agent/bench/benchmark.hpp"
#include "host/host_topology.hpp"

namespace topolab::bench {

// "smt" | "same_l3" | "other_l3" | "other_package"; "unknown" without topology data.
std::string pair_class(const HostTopology* topo, int a, int b);

// ctx.topology when set, else `storage` filled from the OS (os::read_local_topology);
// null when neither is available.
const HostTopology* context_topology(const BenchContext& ctx, HostTopology& storage);

}  // namespace topolab::bench
