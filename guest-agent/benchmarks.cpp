#include "guest-agent/benchmarks.hpp"

#include "guest-agent/bench/benchmark.hpp"

namespace topolab::agent {

Result<nlohmann::json> run_named_benchmark(const std::string& name, const nlohmann::json& params,
                                           const HostTopology* guest_topology) {
  bench::BenchContext ctx;
  ctx.topology = guest_topology;
  return bench::run_benchmark(name, params, ctx);
}

std::vector<std::string> known_benchmarks() { return bench::benchmark_names(); }

int run_benchmark_command(int argc, char** argv) { return bench::run_benchmark_cli(argc, argv); }

}  // namespace topolab::agent
