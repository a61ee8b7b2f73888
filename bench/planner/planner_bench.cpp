// Times the planning stage (plan_guest, i.e. plan_placement) on a generated 2-socket,
// 384-thread host (2 x 12 L3 x 8 cores x SMT2,
// one NUMA node per socket, Linux numbering: siblings n and n + 192) for several layouts and
// policies, including a refusal (which also searches for the nearest feasible layout).
// Usage: planner_bench [iterations]   (prints one line per case, median of the iterations)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "orchestrator/planning/placement/placement_plan.hpp"
#include "orchestrator/planning/placement/synthetic_host.hpp"
#include "orchestrator/planning/plan/guest_plan.hpp"

using namespace topolab;

int main(int argc, char** argv) {
  const int iterations = argc > 1 ? std::max(1, std::atoi(argv[1])) : 200;
  SyntheticHostSpec spec{2, 12, 8, 2, false, false, 262144, true, "AuthenticAMD"};
  const HostTopology host = make_synthetic_host(spec);
  std::printf("host: %zu CPUs, %zu L3 domains, %zu NUMA nodes\n", host.cpus.size(),
              host.l3_domains.size(), host.numa_nodes.size());
  struct Case {
    std::string name;
    Layout layout;
  };
  auto mk = [](std::string name, int g, int c, int t, PlacementPolicy p, Exposure e) {
    Layout l;
    l.name = name;
    l.l3_groups = g, l.cores_per_group = c, l.threads_per_core = t;
    l.policy = p, l.expose = e;
    l.memory_mib = 8192;
    return Case{name, l};
  };
  std::vector<Case> cases = {
      mk("ryzen-1700x l3-aligned (16 vCPUs)", 2, 4, 2, PlacementPolicy::kL3Aligned,
         Exposure::kDies),
      mk("24 groups x 8 x 2 l3-aligned (384 vCPUs)", 24, 8, 2, PlacementPolicy::kL3Aligned,
         Exposure::kDies),
      mk("12 groups x 8 x 2 scatter (192 vCPUs)", 12, 8, 2, PlacementPolicy::kScatter,
         Exposure::kSockets),
      mk("24 x 8 x 2 compact (384 vCPUs)", 24, 8, 2, PlacementPolicy::kCompact, Exposure::kNuma),
      mk("24 x 8 x 2 unpinned (384 vCPUs)", 24, 8, 2, PlacementPolicy::kUnpinned, Exposure::kFlat),
      mk("refused: 25 groups x 8 x 2 (+ nearest-feasible search)", 25, 8, 2,
         PlacementPolicy::kL3Aligned, Exposure::kDies),
  };
  for (const auto& c : cases) {
    std::vector<double> us;
    bool ok = false;
    std::size_t vcpus = 0;
    for (int i = 0; i < iterations; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      // Through the planning stage's one entry (issue 28: nothing else calls plan_placement);
      // without a vCPU limit it adds nothing to the placement's time.
      auto plan = plan::plan_guest(c.layout, plan::HostFacts{host, std::nullopt, std::nullopt});
      auto t1 = std::chrono::steady_clock::now();
      ok = plan.ok();
      vcpus = ok ? plan->placement.vcpus.size() : 0;
      us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    }
    std::sort(us.begin(), us.end());
    std::printf("%-55s %s vcpus=%-4zu median %9.1f us  min %9.1f us  max %9.1f us  (n=%d)\n",
                c.name.c_str(), ok ? "planned" : "refused", vcpus, us[us.size() / 2], us.front(),
                us.back(), iterations);
  }
  return 0;
}
