#include "guest-agent/bench/benchmark.hpp"

#include <algorithm>
#include <cstdio>

#include "guest-agent/bench/benchmark_def.hpp"
#include "guest-agent/bench/guest_topology.hpp"
#include "guest-agent/bench/steal.hpp"
#include "guest-agent/bench/summary.hpp"
#include "guest-agent/bench/telemetry.hpp"
#include "guest-agent/platform.hpp"

namespace topolab::bench {

const std::vector<BenchmarkDef>& all_benchmarks() {
  static const std::vector<BenchmarkDef> defs = [] {
    std::vector<BenchmarkDef> d;
    for (auto make : {c2c_benchmark, fault_rate_benchmark, mem_bandwidth_benchmark,
                      mem_latency_benchmark, migration_benchmark, spawn_loop_benchmark,
                      sqrt_benchmark, syscall_rate_benchmark, topology_benchmark}) {
      d.push_back(make());
    }
    return d;
  }();
  return defs;
}

std::vector<ParamSpec> thread_params(int default_threads, int max_threads) {
  return {
      {"threads",
       ParamType::kInt,
       default_threads,
       0,
       max_threads,
       {},
       64,
       "worker threads; 0 = one per allowed CPU"},
      {"pin",
       ParamType::kString,
       "none",
       0,
       0,
       {"none", "compact", "scatter", "list"},
       64,
       "thread placement: none | compact | scatter | list (cpus in the given order)"},
      {"cpus",
       ParamType::kCpuList,
       "",
       0,
       0,
       {},
       64,
       "CPUs to use (list syntax); empty = all allowed"},
  };
}

ParamSpec repeats_param(int default_repeats, int max_repeats) {
  return {"repeats", ParamType::kInt, default_repeats, 1, max_repeats, {}, 64, "samples to take"};
}

Result<ThreadPlan> plan_threads(const Params& p, const HostTopology* topo) {
  TL_ASSIGN(auto cpus, resolve_cpus(p.cpus("cpus")));
  TL_ASSIGN(auto mode, parse_pin_mode(p.string("pin")));
  int threads = static_cast<int>(p.integer("threads"));
  if (threads == 0) threads = static_cast<int>(cpus.size());
  TL_ASSIGN(auto selected, select_cpus(mode, threads, cpus, topo));
  ThreadPlan plan;
  plan.mode = mode;
  plan.cpus = selected;
  if (mode == PinMode::kNone) {
    plan.used = cpus;
  } else {
    plan.used = CpuList::from_vector(selected);
  }
  return plan;
}

Result<void> check_work(const std::string& what, double units, double limit) {
  if (units <= limit) return {};
  char text[160];
  std::snprintf(text, sizeof(text), ": %.3g units of work is too much (limit %.3g)", units, limit);
  return make_error(ErrorKind::input, what + text);
}

std::uint64_t memory_margin(std::uint64_t available) {
  return std::max<std::uint64_t>(std::uint64_t{32} << 20, available / 8);
}

std::string size_text(double bytes) {
  char text[32];
  if (bytes >= 1024.0 * 1024 * 1024) {
    std::snprintf(text, sizeof(text), "%.1f GiB", bytes / (1024.0 * 1024 * 1024));
  } else if (bytes >= 1024.0 * 1024) {
    std::snprintf(text, sizeof(text), "%.0f MiB", bytes / (1024.0 * 1024));
  } else {
    std::snprintf(text, sizeof(text), "%.0f KiB", bytes / 1024.0);
  }
  return text;
}

Result<void> check_memory(const std::string& what, double bytes) {
  auto available = agent::mem_available_bytes();
  if (!available) {
    return make_error(available.error().kind, what + ": needs " + size_text(bytes) + " and " +
                                                  available.error().message + "; not allocating");
  }
  const std::uint64_t margin = memory_margin(*available);
  const double usable = *available > margin ? static_cast<double>(*available - margin) : 0.0;
  if (bytes <= usable) return {};
  return make_error(ErrorKind::does_not_fit,
                    what + ": needs " + size_text(bytes) + ", guest has " + size_text(usable) +
                        " available (MemAvailable " + size_text(static_cast<double>(*available)) +
                        " less a " + size_text(static_cast<double>(margin)) + " safety margin)");
}

Result<void> need_two_cpus(const std::string& what, const CpuList& cpus) {
  if (cpus.size() >= 2) return {};
  return make_error(ErrorKind::does_not_fit, what + " needs at least two CPUs, got " +
                                                 std::to_string(cpus.size()) + " (CPU list '" +
                                                 cpus.to_string() + "')");
}

std::vector<std::string> benchmark_names() {
  std::vector<std::string> names;
  for (const auto& d : all_benchmarks()) names.push_back(d.name);
  return names;
}

Result<nlohmann::json> run_benchmark(const std::string& name, const nlohmann::json& params,
                                     const BenchContext& ctx) {
  const BenchmarkDef* def = nullptr;
  for (const auto& d : all_benchmarks()) {
    if (d.name == name) def = &d;
  }
  if (!def) {
    std::string known;
    for (const auto& n : benchmark_names()) known += (known.empty() ? "" : ", ") + n;
    return make_error(ErrorKind::input,
                      "unknown benchmark " + shown_name(name) + " (known: " + known + ")");
  }
  TL_ASSIGN(auto p, validate_params(params, def->params, name));
  HostTopology local;
  const HostTopology* topo = context_topology(ctx, local);
  auto steal_before = read_steal_ticks();
  std::optional<TelemetryProbe> probe;
  probe.emplace(topo, ctx.sample_telemetry);
  auto out = def->run(p, topo);
  const protocol::RunTelemetry telemetry = probe->finish();
  auto steal_after = read_steal_ticks();
  if (!out) return out.error().context(name);
  nlohmann::json env{{"cpus", out->cpus.to_string()},
                     {"threads", out->threads},
                     {"steal_before", nullptr},
                     {"steal_after", nullptr}};
  if (steal_before) env["steal_before"] = *steal_before;
  if (steal_after) env["steal_after"] = *steal_after;
  return nlohmann::json{{"benchmark", name},
                        {"params", p.json()},
                        {"metric", out->metric},
                        {"unit", out->unit},
                        {"lower_is_better", out->lower_is_better},
                        {"samples", out->samples},
                        {"summary", summary_to_json(summarize(out->samples))},
                        {"environment", env},
                        {"details", out->details},
                        {"telemetry", protocol::telemetry_to_json(telemetry)}};
}

}  // namespace topolab::bench
