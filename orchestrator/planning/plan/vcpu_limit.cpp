#include "orchestrator/planning/plan/vcpu_limit.hpp"

namespace topolab::plan {

Result<void> check_vcpu_limit(const Layout& l, const VcpuLimit& limit) {
  if (l.vcpu_count() <= limit.max) return {};
  return make_error(ErrorKind::does_not_fit,
                    "layout '" + l.name + "': " + std::to_string(l.l3_groups) + " x " +
                        std::to_string(l.cores_per_group) + " x " +
                        std::to_string(l.threads_per_core) + " = " +
                        std::to_string(l.vcpu_count()) + " vCPUs cannot boot: at most " +
                        std::to_string(limit.max) + " (" + limit.source + ")");
}

}  // namespace topolab::plan
