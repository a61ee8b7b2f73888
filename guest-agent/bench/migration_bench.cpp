// Migration penalty: warm a working set on CPU a, move the thread to CPU b with
// os::pin_current_thread (sched_setaffinity / SetThreadGroupAffinity), and time re-touching it
// there against re-touching it on a.
#include <algorithm>
#include <cstring>
#include <map>

#include "guest-agent/bench/benchmark_def.hpp"
#include "guest-agent/bench/cpu_pairs.hpp"
#include "guest-agent/bench/guest_topology.hpp"
#include "guest-agent/bench/summary.hpp"
#include "guest-agent/bench/timing.hpp"
#include "guest-agent/os.hpp"

namespace topolab::bench {
namespace {

// Reads and writes one word per 64-byte line; returns elapsed ns.
std::uint64_t touch_lines(std::uint64_t* words, std::size_t bytes) {
  std::uint64_t start = now_ns();
  for (std::size_t i = 0; i < bytes / 8; i += 8) words[i] += 1;
  return now_ns() - start;
}

struct PairSize {
  std::vector<double> stay_ns, move_ns;
  int cpu_after_move = -1;
};

Result<PairSize> measure(int a, int b, std::size_t bytes, std::int64_t repeats) {
  PairSize out;
  auto ran = run_threads({a}, [&](int) -> Result<void> {
    TL_ASSIGN(void* m, agent::os::map_memory(bytes));
    auto* words = static_cast<std::uint64_t*>(m);
    std::memset(m, 1, bytes);
    Result<void> status;
    for (std::int64_t r = 0; r < repeats && status; ++r) {
      touch_lines(words, bytes);  // warm on a
      out.stay_ns.push_back(static_cast<double>(touch_lines(words, bytes)));
      touch_lines(words, bytes);  // warm on a again
      status = pin_current_thread(b);
      if (!status) break;
      out.cpu_after_move = agent::os::current_cpu();
      out.move_ns.push_back(static_cast<double>(touch_lines(words, bytes)));
      status = pin_current_thread(a);
    }
    agent::os::unmap_memory(m, bytes);
    return status;
  });
  if (!ran) return ran.error();
  return out;
}

Result<BenchOutput> run_migration(const Params& p, const HostTopology* topo) {
  TL_ASSIGN(auto cpus, resolve_cpus(p.cpus("cpus")));
  TL_TRY(need_two_cpus("migration", cpus));
  TL_ASSIGN(const CpuPairs pairs, plan_cpu_pairs("migration", cpus, p.string("pairs")));
  std::int64_t largest_kib = 0;
  for (std::int64_t kib : p.integers("sizes_kib")) largest_kib = std::max(largest_kib, kib);
  TL_TRY(check_memory("migration", static_cast<double>(largest_kib) * 1024.0));
  double kib_total = 0;
  for (auto kib : p.integers("sizes_kib")) kib_total += static_cast<double>(kib);
  TL_TRY(check_work("pairs x KiB x repeats",
                    static_cast<double>(pairs.size()) * kib_total * p.integer("repeats"), 1e9));
  BenchOutput out{"migration_penalty", "%", true, {}, {}, cpus, 1};
  nlohmann::json rows = nlohmann::json::array();
  std::map<std::string, std::map<std::int64_t, std::vector<double>>> by_class;
  for (auto [a, b] : pairs) {
    for (std::int64_t kib : p.integers("sizes_kib")) {
      TL_ASSIGN(auto m, measure(a, b, static_cast<std::size_t>(kib) * 1024, p.integer("repeats")));
      double stay = median_of(m.stay_ns), move = median_of(m.move_ns);
      double penalty = stay > 0 ? (move - stay) / stay * 100.0 : 0.0;
      std::string cls = pair_class(topo, a, b);
      by_class[cls][kib].push_back(penalty);
      out.samples.push_back(penalty);
      rows.push_back({{"a", a},
                      {"b", b},
                      {"class", cls},
                      {"size_kib", kib},
                      {"stay_ns", stay},
                      {"move_ns", move},
                      {"penalty_pct", penalty},
                      {"ran_on_b", m.cpu_after_move == b}});
    }
  }
  nlohmann::json classes = nlohmann::json::array();
  for (const auto& [cls, sizes] : by_class) {
    for (const auto& [kib, penalties] : sizes) {
      classes.push_back({{"class", cls},
                         {"size_kib", kib},
                         {"pairs", penalties.size()},
                         {"median_penalty_pct", median_of(penalties)}});
    }
  }
  out.details = {{"rows", rows}, {"classes", classes}};
  return out;
}

}  // namespace

BenchmarkDef migration_benchmark() {
  return {"migration",
          "warm a working set on CPU a, move to b (sched_setaffinity), time the re-touch vs "
          "staying on a; penalty % per pair and size (samples), medians per class",
          {
              {"cpus", ParamType::kCpuList, "", 0, 0, {}, 64, "CPUs; empty = all allowed"},
              {"pairs",
               ParamType::kString,
               "first",
               0,
               0,
               {"first", "all"},
               64,
               "first: first CPU -> each other CPU; all: every unordered pair (a < b)"},
              {"sizes_kib",
               ParamType::kIntList,
               nlohmann::json::array({256, 1024, 4096, 16384}),
               4,
               std::int64_t{64} << 20,
               {},
               32,
               "working-set sizes in KiB (4 KiB .. 64 GiB, and within MemAvailable less a "
               "margin)"},
              repeats_param(7),
          },
          run_migration};
}

}  // namespace topolab::bench
