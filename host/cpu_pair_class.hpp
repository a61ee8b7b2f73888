#pragma once
// The core-to-core class of a CPU pair (issue 26), with the die level the Threadripper and
// Opteron studies need: within a CCX, across CCX on one die, across dies of a package, across
// packages. One classifier for both views of a c2c result: the guest view classifies the
// guest-seen topology's vCPUs, the host view the host CPUs behind them.
#include <array>
#include <cstddef>
#include <string_view>

#include "host/host_topology.hpp"

namespace topolab {

enum class CpuPairClass { kSmt, kSameL3, kSameDie, kSamePackage, kOtherPackage, kUnknown };
inline constexpr std::size_t kCpuPairClassCount = 6;

// "smt", "same_l3", "same_die" (other L3, same die), "same_package" (other die, same
// package), "other_package", "unknown" (a CPU the topology does not have, or no package).
std::string_view to_string(CpuPairClass c);
const std::array<CpuPairClass, kCpuPairClassCount>& all_pair_classes();

// Two distinct CPUs of `topo`. The closest level they share decides: the same core (SMT
// siblings), the same L3, the same die, the same package. A topology without L3 data never
// says same_l3; one without dies treats each package as one die; two NUMA nodes inside one
// reported die count as two dies (Zen 1 and Magny-Cours report die_id 0; Intel sub-NUMA
// clusters of one die then read same_package too).
CpuPairClass classify_cpu_pair(const HostTopology& topo, int a, int b);

}  // namespace topolab
