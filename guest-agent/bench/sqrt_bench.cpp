#include "guest-agent/bench/sqrt_bench.hpp"

#include <algorithm>

#include "guest-agent/bench/benchmark_def.hpp"
#include "guest-agent/bench/cpu_board.hpp"
#include "guest-agent/bench/summary.hpp"
#include "guest-agent/bench/timing.hpp"

namespace topolab::bench {

double newton_sqrt(double k) {
  if (k <= 0) return 0;
  double x = k;
  for (int i = 0; i < 200; ++i) {
    double next = 0.5 * (x + k / x);
    if (next >= x) break;
    x = next;
  }
  return x;
}

SqrtWork sqrt_range(std::uint64_t first, std::uint64_t last) {
  SqrtWork w;
  for (std::uint64_t k = first; k <= last; ++k) {
    if ((k & 4095) == 0) note_current_cpu();  // Windows' migration count (cpu_board.hpp)
    double r = newton_sqrt(static_cast<double>(k));
    auto s = static_cast<std::uint64_t>(r);
    if (!(s * s <= k && (s + 1) * (s + 1) > k)) ++w.failures;
    w.checksum += s;
  }
  return w;
}

std::uint64_t isqrt_sum_reference(std::uint64_t n) {
  if (n == 0) return 0;
  std::uint64_t m = 0;  // floor(sqrt(n)) by bisection on integers
  for (std::uint64_t lo = 0, hi = std::min<std::uint64_t>(n, 4294967295u); lo <= hi;) {
    std::uint64_t mid = lo + (hi - lo) / 2;
    if (mid * mid <= n) {
      m = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  // floor(sqrt(k)) == j for k in [j^2, (j+1)^2 - 1]: 2j+1 values each, for j < m.
  std::uint64_t sum = 0;
  for (std::uint64_t j = 1; j < m; ++j) sum += j * (2 * j + 1);
  return sum + m * (n - m * m + 1);
}

namespace {

Result<BenchOutput> run_sqrt(const Params& p, const HostTopology* topo) {
  TL_ASSIGN(auto plan, plan_threads(p, topo));
  const auto n = static_cast<std::uint64_t>(p.integer("n"));
  TL_TRY(check_work("n x repeats", static_cast<double>(n) * p.integer("repeats"), 2e10));
  const int threads = static_cast<int>(plan.cpus.size());
  BenchOutput out{"time", "s", true, {}, {}, plan.used, threads};
  nlohmann::json runs = nlohmann::json::array();
  std::uint64_t checksum = 0;
  for (std::int64_t rep = 0; rep < p.integer("repeats"); ++rep) {
    SpinBarrier barrier(threads);
    std::vector<std::uint64_t> start(threads), end(threads);
    std::vector<SqrtWork> work(threads);
    auto ran = run_threads(plan.cpus, [&](int t) -> Result<void> {
      auto ut = static_cast<std::uint64_t>(t), ucount = static_cast<std::uint64_t>(threads);
      std::uint64_t first = n * ut / ucount + 1, last = n * (ut + 1) / ucount;
      barrier.arrive_and_wait();
      start[t] = now_ns();
      work[t] = first <= last ? sqrt_range(first, last) : SqrtWork{};
      end[t] = now_ns();
      return {};
    });
    if (!ran) return ran.error();
    SqrtWork total;
    nlohmann::json per_thread = nlohmann::json::array();
    for (int t = 0; t < threads; ++t) {
      total.checksum += work[t].checksum;
      total.failures += work[t].failures;
      per_thread.push_back(seconds_between(start[t], end[t]));
    }
    if (total.failures != 0) {
      return make_error(ErrorKind::failed, "sqrt: " + std::to_string(total.failures) +
                                               " Newton results failed the floor check");
    }
    checksum = total.checksum;
    double elapsed = seconds_between(*std::min_element(start.begin(), start.end()),
                                     *std::max_element(end.begin(), end.end()));
    out.samples.push_back(elapsed);
    runs.push_back({{"seconds", elapsed}, {"thread_seconds", per_thread}});
  }
  out.details = {{"n", n},
                 {"checksum", checksum},
                 {"expected_checksum", isqrt_sum_reference(n)},
                 {"checksum_ok", checksum == isqrt_sum_reference(n)},
                 {"runs", runs}};
  if (checksum != isqrt_sum_reference(n)) {
    return make_error(ErrorKind::failed, "sqrt: checksum " + std::to_string(checksum) +
                                             " != expected " +
                                             std::to_string(isqrt_sum_reference(n)));
  }
  return out;
}

}  // namespace

BenchmarkDef sqrt_benchmark() {
  auto params = thread_params(1);
  params.push_back(
      {"n", ParamType::kInt, 2000000, 1, 4000000000LL, {}, 64, "square roots of 1..n"});
  params.push_back(repeats_param(3));
  return {"sqrt",
          "wPrime-like: square roots of 1..n by Newton's rule, every result checked, exact "
          "checksum; time to finish with `threads` threads",
          params, run_sqrt};
}

}  // namespace topolab::bench
