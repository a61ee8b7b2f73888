#include "orchestrator/hostprep/doctor/doctor.hpp"

#include <algorithm>
#include <ostream>

#include "orchestrator/hostprep/doctor/checks.hpp"
#include "orchestrator/libvirt/virt/connection_uri.hpp"

namespace topolab::doctor {
namespace {

// The checks that read the host's /sys, /proc, /dev or /etc, and what each reads: through a
// remote connection (virt/connection_uri.hpp) that filesystem is the other host's, which
// libvirt does not expose, so they skip with the reason instead of describing this machine.
struct FilesystemCheck {
  const char* name;
  const char* reads;
  const char* instead = "";  // what does answer it remotely, if anything
};
constexpr FilesystemCheck kFilesystemChecks[] = {
    {"kvm", "/dev/kvm and /proc/cpuinfo",
     "; the libvirt line says whether that host offers domain type kvm"},
    {"iommu", "/sys/kernel/iommu_groups and /sys/class/iommu"},
    {"isolation", "/proc/cmdline, /sys/devices/system/cpu/isolated and the cgroups"},
    {"cpufreq", "/sys/devices/system/cpu/*/cpufreq"},
    {"irq", "/proc/irq and the irqbalance process"},
    {"thp", "/sys/kernel/mm/transparent_hugepage"},
    {"smt", "/sys/devices/system/cpu/smt"},
};

// The URI when the checks run against another host through libvirt's remote driver.
std::optional<std::string> remote_uri(const DoctorOptions& options, const SysRoot& root) {
  if (!root.live()) return std::nullopt;  // a --root tree is read as given
  auto uri = virt::parse_connection_uri(options.connect_uri);
  if (!uri || !uri->remote) return std::nullopt;
  return uri->uri;
}

}  // namespace

Result<void> check_root_folder(const std::filesystem::path& root) {
  std::error_code ec;
  const auto st = std::filesystem::status(root, ec);
  if (st.type() == std::filesystem::file_type::not_found) {
    return make_error(ErrorKind::not_found, "--root " + root.string() + ": no such folder");
  }
  if (ec) return make_error(ErrorKind::io, "--root " + root.string() + ": " + ec.message());
  if (st.type() != std::filesystem::file_type::directory) {
    return make_error(ErrorKind::input, "--root " + root.string() + ": not a folder");
  }
  return {};
}

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
  if (auto uri = remote_uri(options, root)) {
    for (const auto& c : kFilesystemChecks) {
      results.push_back(skip(c.name, std::string("remote (") + c.reads + " of " + *uri +
                                         ": libvirt does not expose them" + c.instead + ")"));
    }
    // Hugepages: libvirt has an API for them (capabilities + virNodeGetFreePages). Not when the
    // libvirt check could not connect: a silent host would cost the connect bound twice more.
    const bool unreachable =
        results.front().name == "libvirt" && results.front().status == CheckStatus::kFail;
    results.push_back(
        !options.check_libvirt ? skip("hugepages", "remote (libvirt not asked: --no-libvirt)")
        : unreachable          ? skip("hugepages", "remote (the libvirt check could not connect)")
                               : check_hugepages_remote(*uri, guest));
    results.push_back(check_exposure(guest));
    return results;
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
