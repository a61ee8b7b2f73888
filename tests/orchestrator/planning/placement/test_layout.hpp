#pragma once
// A bare layout of `groups` L3 groups x `cores` x `threads` for planner tests.
#include <cstdint>

#include "orchestrator/model/layout/layout.hpp"

namespace topolab::testing {

inline Layout test_layout(int groups, int cores, int threads, Exposure e = Exposure::kDies,
                          std::uint64_t memory_mib = 1024) {
  Layout l;
  l.name = "t";
  l.l3_groups = groups;
  l.cores_per_group = cores;
  l.threads_per_core = threads;
  l.expose = e;
  l.memory_mib = memory_mib;
  return l;
}

}  // namespace topolab::testing
