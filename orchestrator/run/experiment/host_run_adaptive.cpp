// HostRun's adaptive repetitions (issue 27): a cell x benchmark whose values miss their target
// (CV, interval half-width) gets one more run at a time, up to adaptive.max_repetitions.
#include <algorithm>
#include <cmath>

#include "orchestrator/base/statistics/adaptive.hpp"
#include "orchestrator/run/experiment/host_run.hpp"

namespace topolab::experiment::detail {

// Repetition values of one cell x benchmark, from the store (earlier runs included).
std::vector<double> HostRun::values(int cell, int bench) {
  std::vector<double> out;
  auto runs = store_.with([&](store::ResultStore& s) { return s.runs(state_[cell].id); });
  if (!runs) return out;
  for (const auto& r : *runs)
    if (r.benchmark_index == bench && std::isfinite(r.value)) out.push_back(r.value);
  return out;
}

int HostRun::next_rep(int cell, int bench) const {
  int rep = 0;
  for (const auto& [b, r] : state_[cell].done)
    if (b == bench) rep = std::max(rep, r);
  return rep + 1;
}

bool HostRun::wants_more(int cell, int bench) {
  if (!d_.e.adaptive) return false;
  auto v = values(cell, bench);
  if (static_cast<int>(v.size()) < d_.e.repetitions) return false;  // base runs failed
  return static_cast<int>(v.size()) < d_.e.adaptive->max_repetitions &&
         statistics::needs_more_repetitions(
             v, {d_.e.adaptive->cv_threshold, d_.e.adaptive->ci_halfwidth_pct});
}

bool HostRun::needs_adaptive(const Configuration& config) {
  for (int c : config.cells)
    for (int b = 0; b < static_cast<int>(d_.e.benchmarks.size()); ++b)
      if (wants_more(c, b)) return true;
  return false;
}

// Phoronix-style: while a cell x benchmark misses its target (CV, interval half-width), add one
// repetition, up to max_repetitions.
Result<void> HostRun::adaptive_runs(Target& t, const Configuration& config, std::int64_t boot_id,
                                    bool& alive) {
  if (!d_.e.adaptive) return {};
  for (int c : config.cells)
    for (int b = 0; b < static_cast<int>(d_.e.benchmarks.size()); ++b)
      while (alive && wants_more(c, b)) {
        int before = summary_.runs_failed;
        TL_TRY(execute(t, {c, b, next_rep(c, b)}, boot_id, alive));
        ++summary_.runs_adaptive;
        if (summary_.runs_failed != before) break;
      }
  return {};
}

}  // namespace topolab::experiment::detail
