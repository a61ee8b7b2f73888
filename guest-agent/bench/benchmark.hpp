#pragma once
// Benchmarks the guest agent runs on request (protocol `run`) or by hand
// (`topolab-agent run BENCH --param k=v --json`). Only the C++ standard library, Linux
// syscalls and threads: the agent is static and runs as PID 1 of a tiny initramfs.
//
// Result JSON (every benchmark):
//   {"benchmark","params":{effective},"metric","unit","lower_is_better","samples":[...],
//    "summary":{"n","min","median","mean","max","cv"},
//    "environment":{"cpus","threads","steal_before","steal_after"},"details":{...},
//    "telemetry":{protocol/run_telemetry.hpp}}
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "host/host_topology.hpp"

namespace topolab::bench {

struct BenchContext {
  const HostTopology* topology = nullptr;  // guest-seen topology; null: benchmarks read sysfs
  // Sample the threads' CPUs for the result's telemetry (off only to measure its cost).
  bool sample_telemetry = true;
};

// Runs one benchmark. Unknown benchmark, unknown parameter, wrong type or out-of-bounds value
// give an error naming it.
Result<nlohmann::json> run_benchmark(const std::string& name, const nlohmann::json& params,
                                     const BenchContext& ctx);

std::vector<std::string> benchmark_names();

// `topolab-agent run BENCH [--param k=v ...] [--json]`; argv[0] == "run".
// `run --list` prints the benchmarks and their parameters. `run true` exits 0 at once: it is
// the tiny program spawn-loop fork+execs (the agent's own binary), so main() needs no special
// case for it. Returns the process exit code.
int run_benchmark_cli(int argc, char** argv);

}  // namespace topolab::bench
