// STREAM-like bandwidth: copy, scale, add, triad over arrays split among pinned threads.
#include <algorithm>

#include "guest-agent/bench/benchmark_def.hpp"
#include "guest-agent/bench/summary.hpp"
#include "guest-agent/bench/timing.hpp"
#include "guest-agent/os.hpp"
#include "guest-agent/platform.hpp"

namespace topolab::bench {
namespace {

constexpr std::int64_t kMaxAutoArrayKib = 256 * 1024;
constexpr std::int64_t kMinAutoArrayKib = 16 * 1024;

struct Array {
  double* data = nullptr;
  std::size_t bytes = 0;
  ~Array() { agent::os::unmap_memory(data, bytes); }
};

std::int64_t mem_available_kib() {
  auto avail = agent::mem_available_bytes();
  return avail ? static_cast<std::int64_t>(*avail / 1024) : -1;
}

// 4x the summed L3 size, at least 16 MiB, at most 256 MiB, and all three arrays within a
// quarter of the available memory.
std::int64_t auto_array_kib(const HostTopology* topo) {
  std::int64_t l3 = 0;
  if (topo) {
    for (const auto& d : topo->l3_domains) l3 += static_cast<std::int64_t>(d.size_kib);
  }
  std::int64_t kib = std::clamp<std::int64_t>(4 * l3, kMinAutoArrayKib, kMaxAutoArrayKib);
  std::int64_t avail = mem_available_kib();
  if (avail > 0) kib = std::min(kib, avail / 12);
  return std::max<std::int64_t>(kib, 1024);
}

struct Kernel {
  const char* name;
  int arrays_touched;  // 8-byte words moved per element, STREAM counting
};
constexpr Kernel kKernels[] = {{"copy", 2}, {"scale", 2}, {"add", 3}, {"triad", 3}};

void run_kernel(int k, double* a, double* b, double* c, std::size_t lo, std::size_t hi) {
  const double s = 3.0;
  switch (k) {
    case 0:
      for (std::size_t i = lo; i < hi; ++i) c[i] = a[i];
      break;
    case 1:
      for (std::size_t i = lo; i < hi; ++i) b[i] = s * c[i];
      break;
    case 2:
      for (std::size_t i = lo; i < hi; ++i) c[i] = a[i] + b[i];
      break;
    default:
      for (std::size_t i = lo; i < hi; ++i) a[i] = b[i] + s * c[i];
      break;
  }
}

// The three arrays of n doubles, mapped (not yet touched: each thread touches its own slice).
Result<void> map_arrays(Array (&arrays)[3], std::size_t n) {
  for (auto& arr : arrays) {
    arr.bytes = n * sizeof(double);
    TL_ASSIGN_CTX(auto m, agent::os::map_memory(arr.bytes), "mem-bandwidth");
    arr.data = static_cast<double*>(m);
  }
  return {};
}

// When each thread ran each kernel in each repeat: {start, end} in ns at slot(r, k, t).
struct KernelTimes {
  int threads = 0;
  std::int64_t repeats = 0;
  std::vector<std::uint64_t> start, end;
  std::size_t slot(std::int64_t r, int k, int t) const {
    return static_cast<std::size_t>((r * 4 + k) * threads + t);
  }
};

// Runs the four kernels `repeats` times on threads pinned to `cpus`, each on its slice, all
// starting a kernel together after a barrier.
Result<KernelTimes> time_kernels(const std::vector<int>& cpus, double* a, double* b, double* c,
                                 std::size_t n, std::int64_t repeats) {
  KernelTimes times;
  times.threads = static_cast<int>(cpus.size());
  times.repeats = repeats;
  times.start.resize(static_cast<std::size_t>(repeats * 4 * times.threads));
  times.end.resize(times.start.size());
  const auto threads = static_cast<std::size_t>(times.threads);
  SpinBarrier barrier(times.threads);
  TL_TRY(run_threads(cpus, [&](int t) -> Result<void> {
    std::size_t lo = n * static_cast<std::size_t>(t) / threads;
    std::size_t hi = n * static_cast<std::size_t>(t + 1) / threads;
    for (std::size_t i = lo; i < hi; ++i) {  // first touch by the thread that uses the slice
      a[i] = 1.0;
      b[i] = 2.0;
      c[i] = 0.0;
    }
    for (std::int64_t r = 0; r < repeats; ++r) {
      for (int k = 0; k < 4; ++k) {
        barrier.arrive_and_wait();
        times.start[times.slot(r, k, t)] = now_ns();
        run_kernel(k, a, b, c, lo, hi);
        times.end[times.slot(r, k, t)] = now_ns();
      }
    }
    return {};
  }));
  return times;
}

// Per kernel: the aggregate GB/s of each repeat (bytes / (last end - first start)), its best and
// median; `triad` gets the triad aggregates and `thread_triad` each thread's own triad GB/s.
nlohmann::json kernel_summaries(const KernelTimes& times, std::size_t n, std::vector<double>& triad,
                                std::vector<std::vector<double>>& thread_triad) {
  nlohmann::json kernels = nlohmann::json::object();
  thread_triad.assign(static_cast<std::size_t>(times.threads), {});
  for (int k = 0; k < 4; ++k) {
    const double bytes = static_cast<double>(kKernels[k].arrays_touched * sizeof(double) * n);
    std::vector<double> aggregate;
    for (std::int64_t r = 0; r < times.repeats; ++r) {
      std::uint64_t s = times.start[times.slot(r, k, 0)], e = times.end[times.slot(r, k, 0)];
      for (int t = 0; t < times.threads; ++t) {
        const std::size_t at = times.slot(r, k, t);
        s = std::min(s, times.start[at]);
        e = std::max(e, times.end[at]);
        if (k == 3) {
          double slice = bytes / times.threads;
          thread_triad[t].push_back(slice / static_cast<double>(times.end[at] - times.start[at]));
        }
      }
      aggregate.push_back(bytes / static_cast<double>(e - s));  // bytes/ns == GB/s
    }
    Summary sm = summarize(aggregate);
    kernels[kKernels[k].name] = {
        {"best_gbs", sm.max}, {"median_gbs", sm.median}, {"samples", aggregate}};
    if (k == 3) triad = aggregate;
  }
  return kernels;
}

nlohmann::json per_thread_triad(const std::vector<int>& cpus,
                                const std::vector<std::vector<double>>& thread_triad) {
  nlohmann::json per_thread = nlohmann::json::array();
  for (std::size_t t = 0; t < thread_triad.size(); ++t) {
    Summary sm = summarize(thread_triad[t]);
    per_thread.push_back({{"thread", t},
                          {"cpu", cpus[t]},
                          {"triad_best_gbs", sm.max},
                          {"triad_median_gbs", sm.median}});
  }
  return per_thread;
}

// STREAM-style validation: after r rounds every element follows the same recurrence.
bool arrays_valid(const double* a, const double* b, const double* c, std::size_t n,
                  std::int64_t repeats) {
  double ea = 1.0, eb = 2.0, ec = 0.0;
  for (std::int64_t r = 0; r < repeats; ++r) {
    ec = ea;
    eb = 3.0 * ec;
    ec = ea + eb;
    ea = eb + 3.0 * ec;
  }
  return a[0] == ea && b[n / 2] == eb && c[n - 1] == ec;
}

Result<BenchOutput> run_mem_bandwidth(const Params& p, const HostTopology* topo) {
  TL_ASSIGN(auto plan, plan_threads(p, topo));
  std::int64_t kib = p.integer("array_kib") > 0 ? p.integer("array_kib") : auto_array_kib(topo);
  TL_TRY(check_memory("mem-bandwidth (3 arrays of " + std::to_string(kib) + " KiB)",
                      3.0 * static_cast<double>(kib) * 1024.0));
  const std::size_t n = static_cast<std::size_t>(kib) * 1024 / sizeof(double);
  Array arrays[3];
  TL_TRY(map_arrays(arrays, n));
  double *a = arrays[0].data, *b = arrays[1].data, *c = arrays[2].data;
  const std::int64_t repeats = p.integer("repeats");
  TL_ASSIGN(const KernelTimes times, time_kernels(plan.cpus, a, b, c, n, repeats));
  BenchOutput out{"triad_bandwidth", "GB/s", false, {}, {}, plan.used, times.threads};
  std::vector<std::vector<double>> thread_triad;
  nlohmann::json kernels = kernel_summaries(times, n, out.samples, thread_triad);
  if (!arrays_valid(a, b, c, n, repeats))
    return make_error(ErrorKind::failed, "mem-bandwidth: array contents failed validation");
  out.details = {{"array_kib", kib},
                 {"elements", n},
                 {"kernels", kernels},
                 {"threads", per_thread_triad(plan.cpus, thread_triad)},
                 {"validated", true}};
  return out;
}

}  // namespace

BenchmarkDef mem_bandwidth_benchmark() {
  auto params = thread_params(0);
  params.push_back({"array_kib",
                    ParamType::kInt,
                    0,
                    0,
                    std::int64_t{64} << 20,
                    {},
                    64,
                    "size of each of the 3 arrays, at most 64 GiB, all 3 within MemAvailable "
                    "less a margin; 0 = 4x total L3 (16..256 MiB, <= 1/12 of MemAvailable)"});
  params.push_back(repeats_param(3, 20));
  return {"mem-bandwidth",
          "STREAM-like copy/scale/add/triad; aggregate GB/s = bytes / (last end - first "
          "start) after a barrier (samples = triad aggregate)",
          params, run_mem_bandwidth};
}

}  // namespace topolab::bench
