// spawn-loop: N concurrent loops of fork + exec + wait of a tiny program, each loop locked to a
// CPU (pin != none) or free. The default program is the agent itself: `topolab-agent run true`
// exits 0 at once (run_benchmark_cli).
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>

#include "guest-agent/bench/benchmark_def.hpp"
#include "guest-agent/bench/timing.hpp"

namespace topolab::bench {
namespace {

Result<std::string> resolve_program(const std::string& requested) {
  std::string program = requested;
  if (program.empty()) {
    char buf[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
    if (len <= 0)
      return make_error(std::string("readlink /proc/self/exe: ") + std::strerror(errno));
    program.assign(buf, static_cast<std::size_t>(len));
  }
  if (program.front() != '/')
    return make_error("program '" + program + "' is not an absolute path");
  if (access(program.c_str(), X_OK) != 0) {
    return make_error("program '" + program + "' is not executable: " + std::strerror(errno));
  }
  return program;
}

// fork + execv(program, {program, "run", "true"}) + waitpid; error on any non-zero exit.
Result<void> spawn_once(const std::string& program) {
  // argv built before fork: the child of a threaded process may only call async-signal-safe
  // functions until exec.
  std::string run = "run", t = "true";
  char* argv[] = {const_cast<char*>(program.c_str()), run.data(), t.data(), nullptr};
  pid_t pid = fork();
  if (pid < 0) return make_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    execv(program.c_str(), argv);
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return make_error(std::string("waitpid: ") + std::strerror(errno));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return make_error("'" + program + " run true' exited with status " + std::to_string(status));
  }
  return {};
}

Result<BenchOutput> run_spawn(const Params& p, const HostTopology* topo) {
  auto plan = plan_threads(p, topo);
  if (!plan) return plan.error();
  auto program = resolve_program(p.string("program"));
  if (!program) return program.error();
  const int loops = static_cast<int>(plan->cpus.size());
  const std::int64_t iterations = p.integer("iterations");
  TL_TRY(check_work("iterations x loops x repeats",
                    static_cast<double>(iterations * loops * p.integer("repeats")), 1e6));
  BenchOutput out{"spawn_rate", "spawns/s", false, {}, {}, plan->used, loops};
  nlohmann::json runs = nlohmann::json::array();
  for (std::int64_t r = 0; r < p.integer("repeats"); ++r) {
    SpinBarrier barrier(loops);
    std::vector<std::uint64_t> start(loops), end(loops);
    auto ran = run_threads(plan->cpus, [&](int t) -> Result<void> {
      barrier.arrive_and_wait();
      start[t] = now_ns();
      Result<void> status;
      for (std::int64_t i = 0; i < iterations && status; ++i) status = spawn_once(*program);
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
  out.details = {{"program", *program},
                 {"locked", plan->mode != PinMode::kNone},
                 {"loop_cpus", plan->cpus},
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
  params.push_back({"program",
                    ParamType::kString,
                    "",
                    0,
                    0,
                    {},
                    64,
                    "absolute path run as `PROGRAM run true`; empty = this agent binary"});
  params.push_back(repeats_param(3));
  return {"spawn-loop",
          "N concurrent fork+exec+wait loops of a tiny program, locked to CPUs or free; "
          "spawns/s over all loops",
          params, run_spawn};
}

}  // namespace topolab::bench
