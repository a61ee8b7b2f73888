#include "orchestrator/libvirt/virt/vcpu_host_cpus.hpp"

#include <libvirt/libvirt.h>

namespace topolab::virt {

Result<std::vector<int>> vcpu_host_cpus(virDomainPtr dom) {
  std::vector<virVcpuInfo> info(kMaxSampledVcpus);
  const int n = virDomainGetVcpus(dom, info.data(), kMaxSampledVcpus, nullptr, 0);
  if (n < 0) return capture_libvirt_error().context("virDomainGetVcpus");
  std::vector<int> cpus;
  for (int i = 0; i < n && i < kMaxSampledVcpus; ++i) {
    const auto& v = info[static_cast<std::size_t>(i)];
    if (v.number >= static_cast<unsigned>(kMaxSampledVcpus)) continue;
    if (cpus.size() <= v.number) cpus.resize(v.number + 1, -1);
    cpus[v.number] = v.cpu;  // -1 from libvirt when it could not read it
  }
  return cpus;
}

}  // namespace topolab::virt
