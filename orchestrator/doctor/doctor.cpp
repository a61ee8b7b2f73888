#include "orchestrator/doctor/doctor.hpp"

#include <algorithm>
#include <ostream>

#include "orchestrator/doctor/checks.hpp"

namespace topolab::doctor {

std::vector<CheckResult> run_doctor(const DoctorOptions& options) {
  SysRoot root(options.root);
  const GuestRequirements* guest = options.guest ? &*options.guest : nullptr;
  std::vector<CheckResult> results;
  if (options.check_libvirt && root.live()) {
    results.push_back(check_libvirt(options.connect_uri));
  } else {
    results.push_back(skip("libvirt", root.live() ? "not asked" : "not the live root"));
  }
  if (guest && !guest->placement_error.empty()) {
    results.push_back(fail("placement", guest->placement_error,
                           "topolab plan LAYOUT  # then adjust the layout or --guest-cpus"));
  }
  results.push_back(check_kvm(root));
  auto iommu = check_iommu(root, guest);
  results.insert(results.end(), iommu.begin(), iommu.end());
  results.push_back(check_isolated_cpus(root, guest));
  results.push_back(check_hugepages(root, guest));
  results.push_back(check_cpufreq(root, guest));
  results.push_back(check_irq_affinity(root, guest));
  results.push_back(check_thp(root, guest));
  results.push_back(check_smt(root, guest));
  results.push_back(check_exposure(guest));
  return results;
}

void print_check_table(std::ostream& out, const std::vector<CheckResult>& results) {
  std::size_t width = 5;
  for (const auto& r : results) width = std::max(width, r.name.size());
  for (const auto& r : results) {
    std::string status = to_string(r.status);
    out << status << std::string(6 - status.size(), ' ') << r.name
        << std::string(width + 2 - r.name.size(), ' ') << r.reason << "\n";
    if (!r.fix.empty()) out << std::string(6 + width + 2, ' ') << "fix: " << r.fix << "\n";
  }
  int counts[4] = {0, 0, 0, 0};
  for (const auto& r : results) ++counts[static_cast<int>(r.status)];
  out << counts[0] << " ok, " << counts[1] << " warn, " << counts[2] << " fail, " << counts[3]
      << " skipped\n";
}

}  // namespace topolab::doctor
