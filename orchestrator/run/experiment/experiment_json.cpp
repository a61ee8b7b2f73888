// The experiment as stored in the result store beside its results (runner.cpp).
#include "orchestrator/run/experiment/experiment.hpp"
#include "orchestrator/run/experiment/guest_table.hpp"

namespace topolab::experiment {

nlohmann::json experiment_to_json(const Experiment& e) {
  nlohmann::json factors = nlohmann::json::array();
  for (const auto& f : e.factors) factors.push_back({{"key", f.key}, {"levels", f.levels}});
  nlohmann::json benches = nlohmann::json::array();
  for (const auto& b : e.benchmarks) benches.push_back({{"name", b.name}, {"params", b.params}});
  nlohmann::json excludes = nlohmann::json::array();
  for (const auto& x : e.excludes) excludes.push_back(x.match);
  nlohmann::json j = {{"name", e.name},
                      {"description", e.description},
                      {"source_file", e.source_file.string()},
                      {"layout", e.layout_path.string()},
                      {"repetitions", e.repetitions},
                      {"factors", factors},
                      {"benchmarks", benches},
                      {"exclude", excludes},
                      {"baseline", e.baseline},
                      {"seed", e.seed},
                      {"backend", to_string(e.backend)},
                      {"timeout_s", e.timeout_s}};
  if (!e.guest.builtin()) j["guest"] = guest_source_to_json(e.guest);
  if (!e.hosts.empty()) j["hosts"] = e.hosts;
  for (const auto& k : e.os_constants) j["os"][k.name] = k.value;
  if (e.boot.retries) j["boot"]["retries"] = *e.boot.retries;
  if (e.boot.watchdog_ms) j["boot"]["watchdog_ms"] = *e.boot.watchdog_ms;
  if (e.adaptive) {
    j["adaptive"] = {{"max_repetitions", e.adaptive->max_repetitions}};
    if (e.adaptive->cv_threshold) j["adaptive"]["cv_threshold"] = *e.adaptive->cv_threshold;
    if (e.adaptive->ci_halfwidth_pct)
      j["adaptive"]["ci_halfwidth_pct"] = *e.adaptive->ci_halfwidth_pct;
  }
  return j;
}

}  // namespace topolab::experiment
