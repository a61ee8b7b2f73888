#include "guest-agent/benchmarks.hpp"

#include <cstdio>

// TODO(agent): guest-agent/bench/ is written by the bench helper. Until its header is merged,
// the agent builds without benchmarks and answers `run` with an error saying so.
#if __has_include("guest-agent/bench/benchmark.hpp")
#include "guest-agent/bench/benchmark.hpp"
#define TOPOLAB_HAVE_BENCH 1
#endif

namespace topolab::agent {

Result<nlohmann::json> run_named_benchmark(const std::string& name, const nlohmann::json& params,
                                           const HostTopology* guest_topology) {
#ifdef TOPOLAB_HAVE_BENCH
  bench::BenchContext ctx;
  ctx.topology = guest_topology;
  return bench::run_benchmark(name, params, ctx);
#else
  (void)params;
  (void)guest_topology;
  return make_error("benchmark '" + name + "': this agent was built without guest-agent/bench");
#endif
}

std::vector<std::string> known_benchmarks() {
#ifdef TOPOLAB_HAVE_BENCH
  return bench::benchmark_names();
#else
  return {};
#endif
}

int run_benchmark_command(int argc, char** argv) {
#ifdef TOPOLAB_HAVE_BENCH
  return bench::run_benchmark_cli(argc, argv);
#else
  (void)argc;
  (void)argv;
  std::fprintf(stderr, "topolab-agent run: this agent was built without guest-agent/bench\n");
  return 2;
#endif
}

}  // namespace topolab::agent
