// Operation rates with N threads: cheap kernel calls (os::cheap_kernel_call), and page faults
// via map/write/unmap (mmap or VirtualAlloc).
#include <algorithm>

#include "guest-agent/bench/benchmark_def.hpp"
#include "guest-agent/bench/timing.hpp"
#include "guest-agent/os.hpp"

namespace topolab::bench {
namespace {

using OpsFn = Result<void> (*)(const Params&, std::int64_t iterations);

Result<void> getpid_loop(const Params&, std::int64_t iterations) {
  for (std::int64_t i = 0; i < iterations; ++i) agent::os::cheap_kernel_call();
  return {};
}

Result<void> fault_loop(const Params& p, std::int64_t iterations) {
  const auto page = agent::os::page_size();
  const auto pages = static_cast<std::size_t>(p.integer("pages_per_map"));
  for (std::int64_t i = 0; i < iterations; ++i) {
    TL_ASSIGN(auto m, agent::os::map_memory(pages * page));
    auto* bytes = static_cast<volatile char*>(m);
    for (std::size_t k = 0; k < pages; ++k) bytes[k * page] = 1;
    agent::os::unmap_memory(m, pages * page);
  }
  return {};
}

// Each thread runs op `iterations` times after a barrier; sample = ops / (last end - first
// start), where one op counts `ops_per_iteration`.
Result<BenchOutput> run_rate(const Params& p, const HostTopology* topo, OpsFn op,
                             double ops_per_iteration, const char* metric, const char* unit) {
  TL_ASSIGN(auto plan, plan_threads(p, topo));
  const int threads = static_cast<int>(plan.cpus.size());
  const std::int64_t iterations = p.integer("iterations");
  TL_TRY(check_work(std::string(metric) + " ops x threads x repeats",
                    ops_per_iteration * static_cast<double>(iterations) * threads *
                        static_cast<double>(p.integer("repeats")),
                    5e9));
  BenchOutput out{metric, unit, false, {}, {}, plan.used, threads};
  nlohmann::json runs = nlohmann::json::array();
  for (std::int64_t r = 0; r < p.integer("repeats"); ++r) {
    SpinBarrier barrier(threads);
    std::vector<std::uint64_t> start(threads), end(threads);
    auto ran = run_threads(plan.cpus, [&](int t) -> Result<void> {
      barrier.arrive_and_wait();
      start[t] = now_ns();
      auto done = op(p, iterations);
      end[t] = now_ns();
      return done;
    });
    if (!ran) return ran.error();
    double ops = ops_per_iteration * static_cast<double>(iterations);
    nlohmann::json per_thread = nlohmann::json::array();
    for (int t = 0; t < threads; ++t) per_thread.push_back(ops / seconds_between(start[t], end[t]));
    double elapsed = seconds_between(*std::min_element(start.begin(), start.end()),
                                     *std::max_element(end.begin(), end.end()));
    out.samples.push_back(ops * threads / elapsed);
    runs.push_back({{"seconds", elapsed}, {"thread_rates", per_thread}});
  }
  out.details = {{"ops_per_thread", ops_per_iteration * static_cast<double>(iterations)},
                 {"runs", runs}};
  if (op == getpid_loop) out.details["call"] = agent::os::cheap_kernel_call_name();
  return out;
}

Result<BenchOutput> run_syscall_rate(const Params& p, const HostTopology* topo) {
  return run_rate(p, topo, getpid_loop, 1.0, "syscall_rate", "calls/s");
}

Result<BenchOutput> run_fault_rate(const Params& p, const HostTopology* topo) {
  // Every thread holds one mapping at a time; 4 KiB pages (x86-64).
  TL_ASSIGN(auto threads, plan_threads(p, topo));
  TL_TRY(check_memory("fault-rate (threads x pages_per_map x 4 KiB)",
                      static_cast<double>(threads.cpus.size()) *
                          static_cast<double>(p.integer("pages_per_map")) * 4096.0));
  return run_rate(p, topo, fault_loop, static_cast<double>(p.integer("pages_per_map")),
                  "fault_rate", "faults/s");
}

}  // namespace

BenchmarkDef syscall_rate_benchmark() {
  auto params = thread_params(1);
  params.push_back({"iterations",
                    ParamType::kInt,
                    300000,
                    1,
                    2000000000,
                    {},
                    64,
                    "syscall(SYS_getpid) calls per thread"});
  params.push_back(repeats_param(3));
  return {"syscall-rate", "getpid syscalls per second over all threads", params, run_syscall_rate};
}

BenchmarkDef fault_rate_benchmark() {
  auto params = thread_params(1);
  params.push_back({"iterations",
                    ParamType::kInt,
                    2000,
                    1,
                    100000000,
                    {},
                    64,
                    "mmap/write/munmap rounds per thread"});
  params.push_back({"pages_per_map",
                    ParamType::kInt,
                    16,
                    1,
                    4096,
                    {},
                    64,
                    "pages mapped and written (one fault each) per round"});
  params.push_back(repeats_param(3));
  return {"fault-rate",
          "anonymous page faults per second over all threads (mmap, write each page, munmap)",
          params, run_fault_rate};
}

}  // namespace topolab::bench
