#pragma once
// Which host CPU each vCPU thread of a running domain is on now (issue 26 item 2):
// virDomainGetVcpus' virVcpuInfo.cpu, which the QEMU driver reads from field 39 (`processor`)
// of /proc/<qemu pid>/task/<vCPU tid>/stat. One RPC to libvirtd per call; the experiment calls
// it for local guests only (a remote host's round trip would be the sampling's whole cost and
// its timing the network's).
#include <vector>

#include "common/result.hpp"
#include "orchestrator/libvirt/virt/libvirt_handles.hpp"

namespace topolab::virt {

inline constexpr int kMaxSampledVcpus = 1024;

// Indexed by vCPU number (an offline vCPU: -1); at most kMaxSampledVcpus entries.
Result<std::vector<int>> vcpu_host_cpus(virDomainPtr dom);

}  // namespace topolab::virt
