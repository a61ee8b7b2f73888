#include "host/cpu_pair_class.hpp"

namespace topolab {

std::string_view to_string(CpuPairClass c) {
  switch (c) {
    case CpuPairClass::kSmt:
      return "smt";
    case CpuPairClass::kSameL3:
      return "same_l3";
    case CpuPairClass::kSameDie:
      return "same_die";
    case CpuPairClass::kSamePackage:
      return "same_package";
    case CpuPairClass::kOtherPackage:
      return "other_package";
    case CpuPairClass::kUnknown:
      break;
  }
  return "unknown";
}

const std::array<CpuPairClass, kCpuPairClassCount>& all_pair_classes() {
  static const std::array<CpuPairClass, kCpuPairClassCount> all = {
      CpuPairClass::kSmt,         CpuPairClass::kSameL3,       CpuPairClass::kSameDie,
      CpuPairClass::kSamePackage, CpuPairClass::kOtherPackage, CpuPairClass::kUnknown};
  return all;
}

CpuPairClass classify_cpu_pair(const HostTopology& topo, int a, int b) {
  const CpuInfo* ca = topo.cpu(a);
  const CpuInfo* cb = topo.cpu(b);
  if (ca == nullptr || cb == nullptr || ca->package < 0 || cb->package < 0)
    return CpuPairClass::kUnknown;
  if (ca->core >= 0 && ca->core == cb->core) return CpuPairClass::kSmt;
  if (ca->l3 >= 0 && ca->l3 == cb->l3) return CpuPairClass::kSameL3;
  if (ca->package != cb->package) return CpuPairClass::kOtherPackage;
  // Die indices are machine-wide; a topology without dies (-1) has one die per package.
  if (ca->die != cb->die) return CpuPairClass::kSamePackage;
  // Zen 1 (1950X, 2990WX) and Magny-Cours kernels report die_id 0 for every CPU: their dies
  // are the NUMA nodes, so a node boundary inside one reported die is a die boundary.
  if (ca->node >= 0 && cb->node >= 0 && ca->node != cb->node) return CpuPairClass::kSamePackage;
  return CpuPairClass::kSameDie;
}

}  // namespace topolab
