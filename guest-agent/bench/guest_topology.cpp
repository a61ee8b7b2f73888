#include "guest-agent/bench/guest_topology.hpp"

#include "guest-agent/os.hpp"

namespace topolab::bench {

std::string pair_class(const HostTopology* topo, int a, int b) {
  const CpuInfo* ca = topo ? topo->cpu(a) : nullptr;
  const CpuInfo* cb = topo ? topo->cpu(b) : nullptr;
  if (!ca || !cb) return "unknown";
  if (ca->siblings.contains(b) || (ca->core >= 0 && ca->core == cb->core)) return "smt";
  if (ca->package != cb->package) return "other_package";
  if (ca->l3 >= 0 && ca->l3 == cb->l3) return "same_l3";
  return "other_l3";
}

const HostTopology* context_topology(const BenchContext& ctx, HostTopology& storage) {
  if (ctx.topology) return ctx.topology;
  auto local = agent::os::read_local_topology();
  if (!local || local->cpus.empty()) return nullptr;
  storage = std::move(*local);
  return &storage;
}

}  // namespace topolab::bench
