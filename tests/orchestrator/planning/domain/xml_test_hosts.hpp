#pragma once
// The hosts the domain XML tests place every preset on: the big synthetic host the golden files
// are made on (deterministic) and two real captures (an EPYC 7451, a 2-socket Intel with SMT).
#include <string>
#include <vector>

#include "orchestrator/planning/placement/placement_plan.hpp"
#include "tests/orchestrator/planning/placement/fixture_hosts.hpp"

namespace topolab::testing {

inline HostTopology golden_host() { return make_synthetic_host({2, 4, 4, 2, false, true, 16384}); }

inline std::vector<NamedHost> xml_test_hosts() {
  std::vector<NamedHost> hosts = {{"golden", golden_host()}};
  for (const auto& h : fixture_hosts()) {
    if (h.name == "x86_64-epyc_7451" || h.name == "32intel64-2p8co2t+8ve") hosts.push_back(h);
  }
  return hosts;
}

// Every preset (2048 MiB) placed l3-aligned and unpinned on every xml_test_hosts() host where it
// fits: fn(preset, host, layout, plan).
template <class Fn>
void for_each_placed_preset(Fn fn) {
  const auto hosts = xml_test_hosts();
  for (const auto& preset : preset_names()) {
    for (const auto& host : hosts) {
      for (auto policy : {PlacementPolicy::kL3Aligned, PlacementPolicy::kUnpinned}) {
        auto l = *load_layout_or_preset(preset);
        l.memory_mib = 2048;
        l.policy = policy;
        auto plan = plan_placement(l, host.host);
        if (plan) fn(preset, host, l, *plan);
      }
    }
  }
}

}  // namespace topolab::testing
