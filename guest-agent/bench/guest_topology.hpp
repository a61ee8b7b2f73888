#pragma once
// The guest-seen topology as the benchmarks use it: CPU pair classes for c2c/migration, and a
// small sysfs reader for CLI runs (no BenchContext topology).
#include <nlohmann/json.hpp>
#include <string>

#include "guest-agent/bench/benchmark.hpp"
#include "host/host_topology.hpp"

namespace topolab::bench {

// "smt" | "same_l3" | "other_l3" | "other_package"; "unknown" without topology data.
std::string pair_class(const HostTopology* topo, int a, int b);

// Reads /sys/devices/system/cpu (+ node) below `root`: packages, dies, cores, L3, NUMA nodes.
// Missing attributes leave fields at their defaults rather than failing: guests vary.
HostTopology read_local_topology(const std::string& root = "/");

// ctx.topology when set, else `storage` filled from the local sysfs.
const HostTopology* context_topology(const BenchContext& ctx, HostTopology& storage);

// The `topolab host --json` shape (cpus, packages, dies, l3_domains, numa_nodes, isolated,
// vendor, model).
nlohmann::json topology_json(const HostTopology& topo);

}  // namespace topolab::bench
