// Fuzzes parse_experiment (orchestrator/run/experiment/experiment.hpp) and the matrix code an
// accepted experiment flows into (cells, configurations, run order, baseline lookup).
// Beyond "no crash": configurations partition the cells; every run of a configuration names
// one of its cells, a benchmark and a repetition in range.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "orchestrator/model/layout/toml_depth.hpp"
#include "orchestrator/run/experiment/experiment.hpp"
#include "orchestrator/run/experiment/matrix.hpp"

namespace ex = topolab::experiment;

namespace {

// The fuzzer explores parsing; expanding up to kMaxCells cells per input would only measure
// memory and time. Count cells before expanding.
bool small_matrix(const ex::Experiment& e) {
  std::size_t cells = 1;
  for (const auto& f : e.factors) {
    cells *= f.levels.size();
    if (cells > 4096) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view toml(reinterpret_cast<const char*>(data), size);
  auto e = ex::parse_experiment(toml, "fuzz.toml", "/nonexistent-fuzz-dir");
  // The depth gate is the parser's first step: nothing over it reaches toml++.
  if (e.ok() && !topolab::check_toml_depth(toml, "fuzz.toml").ok()) std::abort();
  if (!e.ok()) {
    if (e.error().message.empty()) std::abort();
    return 0;
  }
  (void)ex::experiment_to_json(*e);
  // The parser bounds the matrix (fuzz/regressions/experiment/: 10^20 cells used to be accepted
  // and expanded until memory ran out).
  if (ex::full_factorial_cells(*e) > ex::kMaxCells) std::abort();
  if (!small_matrix(*e)) return 0;
  auto cells = ex::expand_cells(*e);
  auto configs = ex::group_by_configuration(*e, cells);
  std::size_t grouped = 0;
  for (const auto& config : configs) {
    grouped += config.cells.size();
    (void)ex::cmdline_extra(config);
    auto runs = ex::configuration_runs(*e, config, 1, e->repetitions,
                                       ex::configuration_seed(e->seed, config.key));
    if (runs.size() > 100000) continue;
    for (const auto& r : runs) {
      if (r.cell < 0 || r.cell >= static_cast<int>(cells.size())) std::abort();
      if (r.benchmark < 0 || r.benchmark >= static_cast<int>(e->benchmarks.size())) std::abort();
      if (r.repetition < 1 || r.repetition > e->repetitions) std::abort();
    }
  }
  if (grouped != cells.size()) std::abort();
  for (const auto& cell : cells) {
    (void)cell.label();
    int b = ex::baseline_cell(*e, cells, cell);
    if (b < -1 || b >= static_cast<int>(cells.size())) std::abort();
    for (int i = 0; i < static_cast<int>(e->benchmarks.size()); ++i) {
      (void)ex::benchmark_params(*e, cell, i);
    }
  }
  return 0;
}
