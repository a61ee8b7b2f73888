#include "guest-agent/bench/benchmark_def.hpp"
#include "guest-agent/bench/guest_topology.hpp"
#include "host/topology_json.hpp"

namespace topolab::bench {
namespace {

Result<BenchOutput> run_topology(const Params&, const HostTopology* topo) {
  BenchOutput out{"none", "", true, {}, {}, allowed_cpus(), 0};
  out.details = {{"topology", topo ? topology_to_json(*topo) : nlohmann::json(nullptr)}};
  return out;
}

}  // namespace

BenchmarkDef topology_benchmark() {
  return {"topology", "the guest-seen topology (no samples); details.topology", {}, run_topology};
}

}  // namespace topolab::bench
