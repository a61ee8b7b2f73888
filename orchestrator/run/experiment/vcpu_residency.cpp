#include "orchestrator/run/experiment/vcpu_residency.hpp"

#include <algorithm>
#include <map>

namespace topolab::experiment {

namespace {

// The host L3 domain of a CPU, -1 when the topology has no such CPU or it has no L3.
int l3_of(const HostTopology& host, int cpu) {
  const CpuInfo* info = cpu < 0 ? nullptr : host.cpu(cpu);
  if (info == nullptr || info->l3 < 0 ||
      static_cast<std::size_t>(info->l3) >= host.l3_domains.size())
    return -1;
  return info->l3;
}

protocol::VcpuHostTelemetry count_vcpu(const std::vector<std::vector<int>>& ticks,
                                       std::size_t nticks, std::size_t v,
                                       const HostTopology& host) {
  protocol::VcpuHostTelemetry out;
  out.vcpu = static_cast<int>(v);
  int last_cpu = -1, last_l3 = -1;
  std::map<int, std::uint64_t> on_l3;
  for (std::size_t k = 0; k < nticks; ++k) {
    const int cpu = v < ticks[k].size() ? ticks[k][v] : -1;
    if (cpu < 0) continue;  // not read at this tick
    const int l3 = l3_of(host, cpu);
    if (out.samples > 0 && cpu != last_cpu) ++out.vcpu_host_cpu_changes;
    if (l3 < 0) {
      ++out.unknown_cpu_samples;
    } else {
      if (last_l3 >= 0 && l3 != last_l3) ++out.vcpu_host_l3_crossings;
      ++on_l3[l3];
      last_l3 = l3;
    }
    last_cpu = cpu;
    ++out.samples;
  }
  for (const auto& [l3, n] : on_l3)
    out.l3_share[l3] = static_cast<double>(n) / static_cast<double>(out.samples);
  return out;
}

}  // namespace

protocol::HostTelemetry count_residency(const VcpuTicks& samples, const HostTopology& host,
                                        const std::vector<bool>& pinned) {
  protocol::HostTelemetry out;
  out.sampled = true;
  out.interval_ms = std::max(1, samples.interval_ms);
  out.read_us_median = std::clamp(samples.read_us_median, 0.0, 1e7);
  const std::size_t nticks = std::min<std::size_t>(samples.ticks.size(), protocol::kMaxHostSamples);
  out.samples = nticks;
  std::size_t nvcpus = 0;
  for (std::size_t k = 0; k < nticks; ++k) nvcpus = std::max(nvcpus, samples.ticks[k].size());
  nvcpus = std::max(nvcpus, pinned.size());
  nvcpus = std::min(nvcpus, protocol::kMaxHostVcpus);
  for (std::size_t v = 0; v < nvcpus; ++v) {
    auto vcpu = count_vcpu(samples.ticks, nticks, v, host);
    vcpu.pinned = v < pinned.size() && pinned[v];
    out.vcpus.push_back(std::move(vcpu));
  }
  return out;
}

}  // namespace topolab::experiment
