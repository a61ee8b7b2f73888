#pragma once
// The most vCPUs a layout may have and still boot, as a host fact recorded before planning
// (issue 12 class 11; where the limit comes from: session/vcpu_limits.hpp, which asks libvirt).
// The check is the planning stage's: plan_guest refuses a layout over it.
#include <string>

#include "common/result.hpp"
#include "orchestrator/model/layout/layout.hpp"

namespace topolab::plan {

// The hello bound: the agent's hello carries the guest's topology in one protocol line;
// tests/orchestrator/guest/session/vcpu_limits_test.cpp builds the worst-case hello and measures
// it.
inline constexpr int kMaxHelloVcpus = 1536;

struct VcpuLimit {
  int max = kMaxHelloVcpus;
  std::string source;  // says where `max` comes from, for the refusal message
};

// Refuses a layout whose vCPU count exceeds the limit, naming both and the source.
Result<void> check_vcpu_limit(const Layout&, const VcpuLimit&);

}  // namespace topolab::plan
