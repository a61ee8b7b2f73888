#pragma once
// Where a guest's vCPU threads ran on the host during one run (issue 26 item 2): the
// `host_telemetry` object of a stored result, beside the guest's `telemetry`. The host measures
// it (experiment/vcpu_sampler.hpp: each vCPU thread's host CPU, sampled at a bounded rate while
// the benchmark runs; experiment/vcpu_residency.hpp counts it), never the guest: a guest reply
// that carries it is refused at receipt (parse_result). Read back through validate_result.
// A run that was not sampled (remote host, host backend, the reader failed) says why.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/result.hpp"

namespace topolab::protocol {

inline constexpr std::uint64_t kMaxHostSamples = 100000;  // sampling ticks of one run
inline constexpr std::size_t kMaxHostVcpus = 1024;        // vCPUs of one guest
inline constexpr std::size_t kMaxNotSampledBytes = 1024;  // the reason

struct VcpuHostTelemetry {
  int vcpu = -1;
  bool pinned = false;        // the plan pinned it to one host CPU (else: a float set)
  std::uint64_t samples = 0;  // ticks that read this vCPU's host CPU
  std::uint64_t vcpu_host_cpu_changes = 0;   // host CPU differs from the previous read tick
  std::uint64_t vcpu_host_l3_crossings = 0;  // of those, the host L3 domain differs too
  // Ticks on a CPU the stored host topology does not have (or that has no L3): counted for
  // changes, never for crossings or shares.
  std::uint64_t unknown_cpu_samples = 0;
  std::map<int, double> l3_share;  // host L3 domain index -> share of this vCPU's samples
};

struct HostTelemetry {
  bool sampled = false;
  std::string not_sampled;  // why, when !sampled
  int interval_ms = 0;      // the sampling period (after any thinning of a long run)
  std::uint64_t samples = 0;
  double read_us_median = 0;  // the cost of one read of every vCPU's host CPU
  std::vector<VcpuHostTelemetry> vcpus;
};

HostTelemetry host_not_sampled(const std::string& why);

// Errors read "field 'host_telemetry.vcpus[1].vcpu_host_l3_crossings': expected ...".
// Counts are checked against each other (crossings <= changes < samples, shares in [0, 1]
// summing to at most 1).
Result<HostTelemetry> parse_host_telemetry(const nlohmann::json& value);
nlohmann::json host_telemetry_to_json(const HostTelemetry& t);

}  // namespace topolab::protocol
