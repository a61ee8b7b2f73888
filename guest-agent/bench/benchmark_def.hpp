#pragma once
// How a benchmark plugs into run_benchmark: its parameters and a run function returning the
// primary samples plus details. The runner adds params, summary and environment.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/cpu_list.hpp"
#include "common/result.hpp"
#include "guest-agent/bench/params.hpp"
#include "guest-agent/bench/pinning.hpp"
#include "host/host_topology.hpp"

namespace topolab::bench {

struct BenchOutput {
  std::string metric;
  std::string unit;
  bool lower_is_better = true;
  std::vector<double> samples;
  nlohmann::json details = nlohmann::json::object();
  CpuList cpus;  // CPUs used (pinned ones, or the allowed set when unpinned)
  int threads = 1;
};

using RunFn = Result<BenchOutput> (*)(const Params&, const HostTopology* topo);

struct BenchmarkDef {
  std::string name;
  std::string description;
  std::vector<ParamSpec> params;
  RunFn run = nullptr;
};

const std::vector<BenchmarkDef>& all_benchmarks();

// Shared parameter specs: threads (0 = one per allowed CPU), pin, cpus, repeats.
std::vector<ParamSpec> thread_params(int default_threads, int max_threads = 256);
ParamSpec repeats_param(int default_repeats, int max_repeats = 100);

struct ThreadPlan {
  std::vector<int> cpus;  // per thread, -1 = not pinned
  CpuList used;           // for the environment block
  PinMode mode = PinMode::kNone;
};
// From the threads/pin/cpus parameters.
Result<ThreadPlan> plan_threads(const Params& p, const HostTopology* topo);

// Caps the total work one request may ask for, so a request cannot occupy the guest for hours:
// error "NAME: ... is too much work" when units > limit.
Result<void> check_work(const std::string& what, double units, double limit);

// Refuses a planned allocation before anything is allocated when it does not fit in the guest's
// available memory (MemAvailable, from the platform) less a safety margin: as PID 1 the agent
// must never be OOM-killed (the kernel would panic). Error "NAME: needs 1.1 GiB, guest has
// 300 MiB available (MemAvailable 332 MiB less a 32 MiB safety margin)".
Result<void> check_memory(const std::string& what, double bytes);
// The margin kept free: max(32 MiB, 1/8 of MemAvailable).
std::uint64_t memory_margin(std::uint64_t available);
// Pair benchmarks: "NAME needs at least two CPUs, got 1 (CPU list '3')". The count and the list
// are both named, so a one-CPU list '3' is not read as "have 3".
Result<void> need_two_cpus(const std::string& what, const CpuList& cpus);
// "1.1 GiB", "300 MiB", "12 KiB".
std::string size_text(double bytes);

BenchmarkDef sqrt_benchmark();
BenchmarkDef c2c_benchmark();
BenchmarkDef mem_latency_benchmark();
BenchmarkDef mem_bandwidth_benchmark();
BenchmarkDef syscall_rate_benchmark();
BenchmarkDef fault_rate_benchmark();
BenchmarkDef migration_benchmark();
BenchmarkDef spawn_loop_benchmark();
BenchmarkDef topology_benchmark();

}  // namespace topolab::bench
