// spawn-loop: N concurrent loops of fork + exec + wait of a tiny program, each loop locked to a
// CPU (pin != none) or free. The program is the agent itself (`topolab-agent run true` exits 0 at
// once, run_benchmark_cli) or one of a short allow-list of harmless programs: a request must not
// be able to run arbitrary binaries as root. Each child runs with its output on the null device
// and is killed after child_timeout_ms (the platform's spawn_and_wait).
#include <algorithm>

#include "guest-agent/bench/benchmark_def.hpp"
#include "guest-agent/bench/timing.hpp"
#include "guest-agent/platform.hpp"

namespace topolab::bench {
namespace {

// What `program` may name: "" = the agent's own executable. /bin/true and /usr/bin/true exit 0
// and write nothing; they give the same measurement in a guest that has them.
const std::vector<std::string> kAllowedPrograms = {"", "/bin/true", "/usr/bin/true"};
// A generous bound on one child's resident memory (the static agent is about 2 MiB).
constexpr double kChildBytes = 8.0 * 1024 * 1024;

Result<BenchOutput> run_spawn(const Params& p, const HostTopology* topo) {
  TL_ASSIGN(auto plan, plan_threads(p, topo));
  const int loops = static_cast<int>(plan.cpus.size());
  const std::int64_t iterations = p.integer("iterations");
  TL_TRY(check_work("iterations x loops x repeats",
                    static_cast<double>(iterations * loops * p.integer("repeats")), 1e6));
  TL_TRY(check_memory("spawn-loop (" + std::to_string(loops) + " concurrent children)",
                      kChildBytes * loops));
  agent::SpawnRequest request;
  request.program = p.string("program");
  request.args = {"run", "true"};
  request.timeout = std::chrono::milliseconds(p.integer("child_timeout_ms"));
  BenchOutput out{"spawn_rate", "spawns/s", false, {}, {}, plan.used, loops};
  nlohmann::json runs = nlohmann::json::array();
  for (std::int64_t r = 0; r < p.integer("repeats"); ++r) {
    SpinBarrier barrier(loops);
    std::vector<std::uint64_t> start(loops), end(loops);
    auto ran = run_threads(plan.cpus, [&](int t) -> Result<void> {
      barrier.arrive_and_wait();
      start[t] = now_ns();
      Result<void> status;
      for (std::int64_t i = 0; i < iterations && status; ++i) {
        status = agent::spawn_and_wait(request);
      }
      end[t] = now_ns();
      return status;
    });
    if (!ran) return ran.error();
    nlohmann::json loop_seconds = nlohmann::json::array();
    for (int t = 0; t < loops; ++t) loop_seconds.push_back(seconds_between(start[t], end[t]));
    double elapsed = seconds_between(*std::min_element(start.begin(), start.end()),
                                     *std::max_element(end.begin(), end.end()));
    out.samples.push_back(static_cast<double>(iterations * loops) / elapsed);
    runs.push_back({{"seconds", elapsed}, {"loop_seconds", loop_seconds}});
  }
  out.details = {{"program", request.program.empty() ? "self" : request.program},
                 {"locked", plan.mode != PinMode::kNone},
                 {"loop_cpus", plan.cpus},
                 {"runs", runs}};
  return out;
}

}  // namespace

BenchmarkDef spawn_loop_benchmark() {
  auto params = thread_params(1);
  params[0].help = "concurrent spawn loops; 0 = one per allowed CPU";
  params[1].help = "none = loops free; compact|scatter|list = each loop locked to a CPU";
  params.push_back(
      {"iterations", ParamType::kInt, 100, 1, 1000000, {}, 64, "fork+exec+wait rounds per loop"});
  params.push_back({"program", ParamType::kString, "", 0, 0, kAllowedPrograms, 64,
                    "run as `PROGRAM run true`: '' = this agent binary, or /bin/true, "
                    "/usr/bin/true (nothing else)"});
  params.push_back({"child_timeout_ms",
                    ParamType::kInt,
                    10000,
                    100,
                    60000,
                    {},
                    64,
                    "a child still running after this is killed and the run fails"});
  params.push_back(repeats_param(3));
  return {"spawn-loop",
          "N concurrent fork+exec+wait loops of a tiny program, locked to CPUs or free; "
          "spawns/s over all loops",
          params, run_spawn};
}

}  // namespace topolab::bench
