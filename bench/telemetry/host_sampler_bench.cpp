// Cost of the host-side vCPU sampler (issue 26 item 5): one guest boots once, then the same sqrt
// run goes out 2 x ROUNDS times, alternately with the VcpuSampler the guest backend starts for
// every run (reading each vCPU thread's host CPU through libvirt every 100 ms) and without it.
// The order alternates per round, so drift in the machine's load falls on both sides. Prints
// the paired ratios' median with its order-statistics interval (none below 6 rounds), and the
// sampler's own read cost. The guest agent's sampler is on in both arms (overhead.py measures
// that one).
// Usage: host_sampler_bench [LAYOUT] [--rounds N] [--n N] [--threads T] [--policy P] [--json]
#include <CLI/CLI.hpp>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>

#include "bench/support/planned_guest.hpp"
#include "common/exit_code.hpp"
#include "orchestrator/base/statistics/descriptive.hpp"
#include "orchestrator/base/statistics/shift_interval.hpp"
#include "orchestrator/guest/agent/agent_client.hpp"
#include "orchestrator/guest/session/guest_session.hpp"
#include "orchestrator/libvirt/virt/vcpu_host_cpus.hpp"
#include "orchestrator/run/experiment/boot_request.hpp"
#include "orchestrator/run/experiment/vcpu_sampler.hpp"

namespace {

using namespace topolab;
using namespace std::chrono_literals;

struct Arm {
  std::vector<double> seconds;
  std::vector<double> read_us;  // the sampler's median read per run (sampled arm)
};

// One sqrt run; with `sample`, the guest backend's sampler around it (guest_backend.cpp).
Result<double> one_run(GuestSession& s, const nlohmann::json& params, bool sample, Arm& arm) {
  std::optional<experiment::VcpuSampler> sampler;
  virDomainPtr dom = s.domain();
  if (sample)
    sampler.emplace([dom] { return virt::vcpu_host_cpus(dom); },
                    experiment::VcpuSampler::Options{});
  auto r = s.agent().run("sqrt", params, 600s);
  if (sampler) {
    const auto ticks = sampler->stop();
    if (ticks.ticks.empty())
      return make_error(ErrorKind::failed, "no vCPU sample was read: " + sampler->error());
    arm.read_us.push_back(ticks.read_us_median);
  }
  if (!r) return r.error();
  if (r->samples.empty()) return make_error(ErrorKind::failed, "sqrt returned no sample");
  arm.seconds.push_back(r->samples[0]);
  return r->samples[0];
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"the same sqrt run with and without the host's vCPU sampler, interleaved"};
  cli::LayoutArgs largs;
  largs.layout = "examples/layouts/two-groups.toml";
  int rounds = 12, threads = 2;
  std::int64_t n = 4000000;
  bool json = false;
  app.add_option("layout", largs.layout, "layout file or preset (default two-groups)");
  app.add_option("--rounds", rounds)->check(CLI::Range(1, 200));
  app.add_option("--n", n, "sqrt's n")->check(CLI::Range(1000LL, 4000000000LL));
  app.add_option("--threads", threads)->check(CLI::Range(1, 64));
  app.add_option_function<std::string>("--policy", [&](const std::string& v) {
    largs.overrides.emplace_back("placement.policy", v);
  });
  app.add_flag("--json", json);
  CLI11_PARSE(app, argc, argv);
  auto fail = [](const Error& e) {
    std::cerr << "host_sampler_bench: " << e.message << "\n";
    return to_int(exit_code_for(e));
  };
  auto g = bench_support::plan_guest_here(largs);
  if (!g) return fail(g.error());
  experiment::BootChoices choices;
  choices.image = g->image;
  auto s = GuestSession::boot(experiment::make_boot_request(g->plan, g->accel, choices));
  if (!s) return fail(s.error());
  const nlohmann::json params = {{"threads", threads}, {"n", n}, {"repeats", 1}};
  Arm with, without;
  std::vector<double> ratios;
  for (int r = 0; r < rounds; ++r) {
    double w = 0, wo = 0;
    for (bool sample : r % 2 ? std::vector<bool>{true, false} : std::vector<bool>{false, true}) {
      auto t = one_run(**s, params, sample, sample ? with : without);
      if (!t) {
        (void)(*s)->shutdown();
        return fail(t.error());
      }
      (sample ? w : wo) = *t;
    }
    ratios.push_back(w / wo);
    if (!json)
      std::cerr << "round " << r + 1 << "/" << rounds << ": with " << w << " s, without " << wo
                << " s\n";
  }
  (void)(*s)->shutdown();
  const double med = statistics::median(ratios);
  const auto iv = statistics::median_interval(ratios);
  nlohmann::json out = {{"layout", g->layout.name},
                        {"vcpus", g->layout.vcpu_count()},
                        {"rounds", rounds},
                        {"n", n},
                        {"threads", threads},
                        {"with_median_s", statistics::median(with.seconds)},
                        {"without_median_s", statistics::median(without.seconds)},
                        {"overhead_pct", 100 * (med - 1)},
                        {"overhead_interval_pct", nullptr},
                        {"sampler_read_us_median", statistics::median(with.read_us)}};
  if (iv) out["overhead_interval_pct"] = {100 * (iv->low - 1), 100 * (iv->high - 1)};
  if (json) {
    std::cout << out.dump(2) << "\n";
    return to_int(ExitCode::ok);
  }
  // Seconds to ms, percentages to 0.1, a read to whole us: a TCG run's noise is larger still.
  std::cout << std::fixed << std::setprecision(3);
  std::cout << g->layout.name << " (" << g->layout.vcpu_count() << " vCPUs), sqrt n=" << n << " x "
            << threads << " threads, " << rounds << " rounds: with "
            << out["with_median_s"].get<double>() << " s, without "
            << out["without_median_s"].get<double>() << " s; overhead (paired median) "
            << std::setprecision(1) << out["overhead_pct"].get<double>() << " %";
  if (iv)
    std::cout << ", 95 % interval " << 100 * (iv->low - 1) << ".." << 100 * (iv->high - 1) << " %";
  else
    std::cout << " (no interval below 6 rounds)";
  std::cout << std::setprecision(0) << "; one sampler read "
            << out["sampler_read_us_median"].get<double>() << " us per 100 ms\n";
  return to_int(ExitCode::ok);
}
