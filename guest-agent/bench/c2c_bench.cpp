// Core-to-core latency: two threads pinned to CPUs a and b bounce a cache line.
#include <algorithm>
#include <atomic>
#include <map>

#include "guest-agent/bench/benchmark_def.hpp"
#include "guest-agent/bench/cpu_pairs.hpp"
#include "guest-agent/bench/guest_topology.hpp"
#include "guest-agent/bench/summary.hpp"
#include "guest-agent/bench/timing.hpp"

namespace topolab::bench {
namespace {

struct alignas(128) Line {  // 128: keeps the adjacent-line prefetcher off the other line
  std::atomic<std::uint64_t> value{0};
  char pad[128 - sizeof(std::atomic<std::uint64_t>)];
};

struct PingPong {
  Line ping;  // cas mode: the only line; rw mode: written by the initiator
  Line pong;  // rw mode: written by the responder
};

// One-way latency samples (ns) for one pair: `repeats` samples of `iterations` round trips.
Result<std::vector<double>> measure_pair(int a, int b, bool cas, std::int64_t iterations,
                                         std::int64_t repeats) {
  PingPong pp;
  std::vector<double> samples;
  const auto rounds = static_cast<std::uint64_t>(iterations * repeats);
  auto ran = run_threads({a, b}, [&](int index) -> Result<void> {
    if (index == 1) {  // responder
      for (std::uint64_t i = 0; i < rounds; ++i) {
        if (cas) {
          std::uint64_t want = 2 * i + 1;
          while (!pp.ping.value.compare_exchange_weak(want, 2 * i + 2, std::memory_order_acq_rel)) {
            want = 2 * i + 1;
          }
        } else {
          while (pp.ping.value.load(std::memory_order_acquire) != i + 1) {
          }
          pp.pong.value.store(i + 1, std::memory_order_release);
        }
      }
      return {};
    }
    std::uint64_t i = 0;
    for (std::int64_t r = 0; r < repeats; ++r) {
      std::uint64_t start = now_ns();
      for (std::int64_t k = 0; k < iterations; ++k, ++i) {
        if (cas) {
          std::uint64_t want = 2 * i;
          while (!pp.ping.value.compare_exchange_weak(want, 2 * i + 1, std::memory_order_acq_rel)) {
            want = 2 * i;
          }
        } else {
          pp.ping.value.store(i + 1, std::memory_order_release);
          while (pp.pong.value.load(std::memory_order_acquire) != i + 1) {
          }
        }
      }
      if (cas) {  // the last round trip ends when the responder has answered
        while (pp.ping.value.load(std::memory_order_acquire) != 2 * i) {
        }
      }
      samples.push_back(static_cast<double>(now_ns() - start) /
                        (2.0 * static_cast<double>(iterations)));
    }
    return {};
  });
  if (!ran) return ran.error();
  return samples;
}

Result<BenchOutput> run_c2c(const Params& p, const HostTopology* topo) {
  TL_ASSIGN(auto cpus, resolve_cpus(p.cpus("cpus")));
  TL_TRY(need_two_cpus("c2c-latency", cpus));
  TL_ASSIGN(const CpuPairs pairs, plan_cpu_pairs("c2c-latency", cpus, p.string("pairs")));
  const std::int64_t iterations = p.integer("iterations"), repeats = p.integer("repeats");
  TL_TRY(check_work("pairs x repeats x iterations",
                    static_cast<double>(pairs.size()) * static_cast<double>(iterations * repeats),
                    2e9));
  const bool cas = p.string("mode") == "cas";
  BenchOutput out{"one_way_latency", "ns", true, {}, {}, cpus, 2};
  nlohmann::json rows = nlohmann::json::array();
  std::map<std::string, std::vector<double>> class_medians, class_mins;
  for (auto [a, b] : pairs) {
    auto samples = measure_pair(a, b, cas, iterations, repeats);
    if (!samples) return samples.error();
    Summary s = summarize(*samples);
    std::string cls = pair_class(topo, a, b);
    class_medians[cls].push_back(s.median);
    class_mins[cls].push_back(s.min);
    out.samples.push_back(s.median);
    rows.push_back({{"a", a},
                    {"b", b},
                    {"class", cls},
                    {"min_ns", s.min},
                    {"median_ns", s.median},
                    {"samples", *samples}});
  }
  nlohmann::json classes = nlohmann::json::object();
  for (const auto& [cls, medians] : class_medians) {
    classes[cls] = {{"pairs", medians.size()},
                    {"min_ns", *std::min_element(class_mins[cls].begin(), class_mins[cls].end())},
                    {"median_ns", median_of(medians)}};
  }
  out.details = {{"mode", cas ? "cas" : "rw"}, {"pairs", rows}, {"classes", classes}};
  return out;
}

}  // namespace

BenchmarkDef c2c_benchmark() {
  return {"c2c-latency",
          "core-to-core ping-pong over a CPU list; one-way ns per pair (samples = per-pair "
          "medians), summary by class smt/same_l3/other_l3/other_package",
          {
              {"cpus", ParamType::kCpuList, "", 0, 0, {}, 64, "CPUs to pair; empty = all allowed"},
              {"mode",
               ParamType::kString,
               "cas",
               0,
               0,
               {"cas", "rw"},
               64,
               "cas: compare-and-swap on one shared line; rw: ping line + pong line"},
              {"pairs",
               ParamType::kString,
               "all",
               0,
               0,
               {"all", "first"},
               64,
               "all pairs, or the first CPU against each other one"},
              {"iterations", ParamType::kInt, 2000, 1, 10000000, {}, 64, "round trips per sample"},
              repeats_param(7),
          },
          run_c2c};
}

}  // namespace topolab::bench
