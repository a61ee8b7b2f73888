#include "orchestrator/doctor/layout_requirements.hpp"

namespace topolab::doctor {

Result<GuestRequirements> load_guest_requirements(const RequirementsRequest& request) {
  GuestRequirements req;
  if (!request.layout_file.empty()) {
    return make_error("--layout " + request.layout_file +
                      ": layout files are not readable yet (orchestrator/layout has not landed "
                      "on main); use --guest-cpus/--guest-os");
  }
  if (!request.guest_cpus.empty()) {
    auto cpus = CpuList::parse(request.guest_cpus);
    if (!cpus) return cpus.error().context("--guest-cpus");
    req.guest_cpus = *cpus;
    req.vcpus = static_cast<int>(cpus->size());
  }
  req.guest_os = request.guest_os;
  return req;
}

}  // namespace topolab::doctor
