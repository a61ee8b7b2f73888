// Memory latency: a dependent-load pointer chase over one random cycle of 64-byte nodes.
#include "guest-agent/bench/mem_latency_bench.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

#include "guest-agent/bench/benchmark_def.hpp"
#include "guest-agent/bench/summary.hpp"
#include "guest-agent/bench/timing.hpp"
#include "guest-agent/os.hpp"

namespace topolab::bench {

std::vector<std::uint32_t> sattolo_cycle(std::uint32_t n, std::uint64_t seed) {
  std::vector<std::uint32_t> perm(n);
  for (std::uint32_t i = 0; i < n; ++i) perm[i] = i;
  SplitMix64 rng{seed};
  for (std::uint32_t i = n; i > 1; --i) {
    std::uint32_t j = static_cast<std::uint32_t>(rng.below(i - 1));  // j < i-1: never itself
    std::swap(perm[i - 1], perm[j]);
  }
  return perm;
}

namespace {

constexpr std::size_t kNodeBytes = 64;
// 64 GiB: 2^30 nodes, still indexable with 32 bits; what fits is checked against MemAvailable.
constexpr std::int64_t kMaxBufferKib = std::int64_t{64} << 20;

struct Mapping {  // anonymous memory, unmapped on scope exit
  void* addr = nullptr;
  std::size_t bytes = 0;
  ~Mapping() { agent::os::unmap_memory(addr, bytes); }
};

// Builds the cycle in `m` (allocating and touching every page first).
Result<void> build_chase(Mapping& m, std::size_t bytes, std::uint64_t seed) {
  TL_ASSIGN(m.addr, agent::os::map_memory(bytes));
  m.bytes = bytes;
  std::memset(m.addr, 0, bytes);
  auto n = static_cast<std::uint32_t>(bytes / kNodeBytes);
  auto next = sattolo_cycle(n, seed);
  auto* base = static_cast<char*>(m.addr);
  for (std::uint32_t i = 0; i < n; ++i) {
    *reinterpret_cast<void**>(base + i * kNodeBytes) = base + next[i] * kNodeBytes;
  }
  return {};
}

void* chase(void* p, std::int64_t loads) {
  for (std::int64_t i = 0; i < loads; ++i) p = *static_cast<void**>(p);
  return p;
}

Result<BenchOutput> run_mem_latency(const Params& p, const HostTopology*) {
  const int cpu = static_cast<int>(p.integer("cpu"));
  const int touch_cpu = p.integer("touch_cpu") < 0 ? cpu : static_cast<int>(p.integer("touch_cpu"));
  for (int c : {cpu, touch_cpu}) {
    if (c >= 0 && !allowed_cpus().contains(c)) {
      return make_error(ErrorKind::does_not_fit, "CPU " + std::to_string(c) + " is not allowed (" +
                                                     allowed_cpus().to_string() + ")");
    }
  }
  const std::int64_t loads = p.integer("loads"), repeats = p.integer("repeats");
  TL_TRY(check_work("loads x repeats x sizes",
                    static_cast<double>(loads * repeats) * p.integers("sizes_kib").size(), 2e9));
  // One buffer at a time, plus the 4-byte-per-node permutation built alongside it.
  std::int64_t largest_kib = 0;
  for (std::int64_t kib : p.integers("sizes_kib")) largest_kib = std::max(largest_kib, kib);
  TL_TRY(check_memory("mem-latency",
                      static_cast<double>(largest_kib) * 1024.0 * (1.0 + 4.0 / kNodeBytes)));
  BenchOutput out{"load_latency", "ns", true, {}, {}, {}, 1};
  out.cpus = cpu >= 0 ? CpuList{cpu} : allowed_cpus();
  if (touch_cpu >= 0) out.cpus.insert(touch_cpu);
  nlohmann::json rows = nlohmann::json::array();
  std::vector<double> last_samples;
  volatile std::uintptr_t sink = 0;
  for (std::int64_t kib : p.integers("sizes_kib")) {
    Mapping m;
    auto built = run_threads({touch_cpu}, [&](int) {
      return build_chase(m, static_cast<std::size_t>(kib) * 1024,
                         static_cast<std::uint64_t>(p.integer("seed")));
    });
    if (!built) return built.error().context("mem-latency " + std::to_string(kib) + " KiB");
    std::vector<double> samples;
    auto ran = run_threads({cpu}, [&](int) -> Result<void> {
      std::uint64_t nodes = static_cast<std::uint64_t>(kib) * 1024 / kNodeBytes;
      void* ptr = chase(m.addr, static_cast<std::int64_t>(std::min<std::uint64_t>(
                                    nodes, static_cast<std::uint64_t>(loads))));  // warm-up
      for (std::int64_t r = 0; r < repeats; ++r) {
        std::uint64_t start = now_ns();
        ptr = chase(ptr, loads);
        samples.push_back(static_cast<double>(now_ns() - start) / static_cast<double>(loads));
      }
      sink = sink + reinterpret_cast<std::uintptr_t>(ptr);
      return {};
    });
    if (!ran) return ran.error();
    Summary s = summarize(samples);
    rows.push_back({{"size_kib", kib},
                    {"min_ns", s.min},
                    {"median_ns", s.median},
                    {"cv", s.cv},
                    {"samples", samples}});
    last_samples = samples;
  }
  out.samples = last_samples;
  out.details = {{"sizes", rows}, {"cpu", cpu}, {"touch_cpu", touch_cpu}, {"node_bytes", 64}};
  return out;
}

}  // namespace

BenchmarkDef mem_latency_benchmark() {
  return {"mem-latency",
          "dependent-load pointer chase over a Sattolo single cycle of 64 B nodes; ns per load "
          "per size (samples = the largest size)",
          {
              {"sizes_kib",
               ParamType::kIntList,
               nlohmann::json::array({16, 64, 256, 1024, 4096, 16384, 65536}),
               4,
               kMaxBufferKib,
               {},
               32,
               "buffer sizes in KiB (4 KiB .. 64 GiB, and within MemAvailable less a margin), "
               "each chased separately"},
              {"loads",
               ParamType::kInt,
               500000,
               1000,
               1000000000,
               {},
               64,
               "dependent loads per sample"},
              {"cpu", ParamType::kInt, -1, -1, 8191, {}, 64, "CPU that chases; -1 = not pinned"},
              {"touch_cpu",
               ParamType::kInt,
               -1,
               -1,
               8191,
               {},
               64,
               "CPU that allocates and touches the buffer; -1 = same as cpu"},
              {"seed", ParamType::kInt, 1, 0, INT64_MAX, {}, 64, "permutation seed"},
              repeats_param(3),
          },
          run_mem_latency};
}

}  // namespace topolab::bench
