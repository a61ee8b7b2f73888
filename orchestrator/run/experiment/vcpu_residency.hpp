#pragma once
// From samples of each vCPU thread's host CPU to what a run stores (issue 26 item 2): per vCPU
// the host-CPU changes, the host-L3 crossings and the share of its samples on each host L3
// domain, on the stored host topology. Pure: the sampler (vcpu_sampler.hpp) gathers the ticks.
#include <vector>

#include "host/host_topology.hpp"
#include "protocol/host_telemetry.hpp"

namespace topolab::experiment {

struct VcpuTicks {
  // ticks[k][v]: the host CPU vCPU v was on at tick k; -1 (or a missing entry) when that tick
  // did not read it. At most protocol::kMaxHostSamples ticks and kMaxHostVcpus vCPUs count.
  std::vector<std::vector<int>> ticks;
  int interval_ms = 0;
  double read_us_median = 0;
};

// pinned[v]: the plan pinned vCPU v to one host CPU (missing: false). A CPU id the host
// topology does not have (or that has no L3) is counted in unknown_cpu_samples: a change, never
// a crossing or a share. A vCPU no tick read is listed with 0 samples and no shares.
protocol::HostTelemetry count_residency(const VcpuTicks& samples, const HostTopology& host,
                                        const std::vector<bool>& pinned);

}  // namespace topolab::experiment
