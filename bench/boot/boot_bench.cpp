// Boots a layout N times through GuestSession and reports, per boot and summarised:
// define_ms, start_ms, hello_ms (start returned -> hello received) and the guest's own uptime
// at hello. uptime / hello_ms says how much of the host-measured wait is the guest booting
// (goal >= 90 %); the rest is QEMU/libvirt work after start returned and our own latency.
// Usage: boot_bench [LAYOUT] [--boots N] [--accel tcg|kvm|auto] [--policy P] [--expose E] [--json]
#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>
#include <numeric>

#include "bench/support/planned_guest.hpp"
#include "common/exit_code.hpp"
#include "orchestrator/guest/session/guest_session.hpp"
#include "orchestrator/run/experiment/boot_request.hpp"

namespace {

struct Stat {
  double min = 0, median = 0, mean = 0, max = 0;
};

Stat stat_of(std::vector<double> v) {
  Stat s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.min = v.front();
  s.max = v.back();
  s.median = v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  return s;
}

nlohmann::json to_json(const Stat& s) {
  return {{"min", s.min}, {"median", s.median}, {"mean", s.mean}, {"max", s.max}};
}

}  // namespace

int main(int argc, char** argv) {
  using namespace topolab;
  CLI::App app{"boot N guests, report host time to hello vs guest uptime at hello"};
  cli::LayoutArgs largs;
  largs.layout = "ryzen-1700x";
  int boots = 5;
  std::string accel = "tcg";
  bool json = false;
  app.add_option("layout", largs.layout, "layout file or preset (default ryzen-1700x)");
  app.add_option("--boots", boots, "number of boots")->check(CLI::Range(1, 100));
  app.add_option("--accel", accel)->check(CLI::IsMember({"auto", "kvm", "tcg"}));
  app.add_option_function<std::string>("--policy", [&](const std::string& v) {
    largs.overrides.emplace_back("placement.policy", v);
  });
  app.add_option_function<std::string>(
      "--expose", [&](const std::string& v) { largs.overrides.emplace_back("expose.as", v); });
  app.add_flag("--json", json);
  CLI11_PARSE(app, argc, argv);

  auto fail = [](const Error& e) {
    std::cerr << "boot_bench: " << e.message << "\n";
    return to_int(exit_code_for(e));
  };
  auto g = bench_support::plan_guest_here(largs, *virt::parse_accel_mode(accel));
  if (!g) return fail(g.error());

  std::vector<double> define, start, hello, uptime, ratio, ratio_from_start_call;
  nlohmann::json runs = nlohmann::json::array();
  for (int i = 0; i < boots; ++i) {
    experiment::BootChoices choices;
    choices.image = g->image;
    auto s = GuestSession::boot(experiment::make_boot_request(g->plan, g->accel, choices));
    if (!s) return fail(s.error());
    auto t = (*s)->timings();
    (void)(*s)->shutdown();
    double h = t["hello_ms"].get<double>(), u = t["guest_uptime_at_hello_ms"].get<double>();
    double st = t["start_ms"].get<double>();
    define.push_back(t["define_ms"].get<double>());
    start.push_back(st);
    hello.push_back(h);
    uptime.push_back(u);
    ratio.push_back(h > 0 ? u / h : 0);
    ratio_from_start_call.push_back(h + st > 0 ? u / (h + st) : 0);
    runs.push_back(t);
    if (!json) {
      std::cerr << "boot " << i + 1 << "/" << boots << ": define " << t["define_ms"]
                << " ms, start " << st << " ms, hello " << h << " ms, guest uptime " << u << " ms ("
                << static_cast<int>(100 * ratio.back()) << " %)\n";
    }
  }
  nlohmann::json out = {{"layout", g->layout.name},
                        {"vcpus", g->layout.vcpu_count()},
                        {"accel", accel},
                        {"boots", boots},
                        {"define_ms", to_json(stat_of(define))},
                        {"start_ms", to_json(stat_of(start))},
                        {"hello_ms", to_json(stat_of(hello))},
                        {"guest_uptime_at_hello_ms", to_json(stat_of(uptime))},
                        {"uptime_over_hello", to_json(stat_of(ratio))},
                        {"uptime_over_start_plus_hello", to_json(stat_of(ratio_from_start_call))},
                        {"goal_uptime_over_hello", 0.9},
                        {"runs", runs}};
  if (json) {
    std::cout << out.dump(2) << "\n";
  } else {
    auto r = stat_of(ratio);
    std::cout << g->layout.name << " x" << boots << " (" << accel << ", " << g->layout.vcpu_count()
              << " vCPUs): hello median " << stat_of(hello).median
              << " ms after start, guest uptime"
              << " median " << stat_of(uptime).median << " ms; uptime/hello mean "
              << static_cast<int>(100 * r.mean) << " % (min " << static_cast<int>(100 * r.min)
              << " %), goal >= 90 %\n";
  }
  return to_int(ExitCode::ok);
}
