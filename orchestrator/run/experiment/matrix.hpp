#pragma once
// Full factorial expansion of an experiment into cells, exclusion, grouping of cells by guest
// configuration (one boot per configuration) and the seeded order of runs inside a boot.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "orchestrator/run/experiment/experiment.hpp"

namespace topolab::experiment {

using Levels = std::vector<std::pair<std::string, nlohmann::json>>;  // factor key -> level

struct Cell {
  int index = 0;           // position in the expansion (after exclusion)
  Levels levels;           // every factor, in file order
  std::string key;         // canonical JSON of all levels: identifies the cell in the store
  std::string config_key;  // canonical JSON of the guest-configuration levels only
  nlohmann::json factors_json() const;  // {"expose":"flat",...}
  std::string label() const;            // "expose=flat policy=unpinned"
};

// Cells that share one guest configuration (layout fields + kernel command line).
struct Configuration {
  std::string key;
  Levels levels;           // layout and cmdline factors only
  std::vector<int> cells;  // indexes into the cell vector
  std::string label() const;
};

struct RunSpec {
  int cell = 0;
  int benchmark = 0;   // index into Experiment::benchmarks
  int repetition = 0;  // 1-based
};

bool is_excluded(const Experiment&, const Levels&);
std::vector<Cell> expand_cells(const Experiment&);
std::vector<Configuration> group_by_configuration(const Experiment&, const std::vector<Cell>&);

// The benchmark's params with the cell's param.<name> (every benchmark) and
// param.<bench>.<name> levels applied.
nlohmann::json benchmark_params(const Experiment&, const Cell&, int benchmark);
// The guest OS settings of one cell's runs: the [os] table and the cell's os.* levels.
std::map<std::string, nlohmann::json> os_settings(const Experiment&, const Cell&);
// Kernel command-line additions of a configuration: cmdline.nohz="off" -> "nohz=off",
// true -> "nohz", false -> nothing.
std::string cmdline_extra(const Configuration&);

// The cell measured as the baseline of `cell`: same levels except the [baseline] factors.
// -1 when the experiment has no baseline or that cell is excluded.
int baseline_cell(const Experiment&, const std::vector<Cell>&, const Cell&);

// Seed of one configuration's run order: derived from the experiment seed and the
// configuration key, so it does not depend on which configurations already ran.
std::uint64_t configuration_seed(std::uint64_t experiment_seed, const std::string& config_key);
// Deterministic Fisher-Yates with splitmix64 (std::shuffle differs between libraries).
void shuffle_runs(std::vector<RunSpec>& runs, std::uint64_t seed);
// Every benchmark x repetition of the configuration's cells, repetitions first..last, shuffled.
std::vector<RunSpec> configuration_runs(const Experiment&, const Configuration&, int first_rep,
                                        int last_rep, std::uint64_t seed);

}  // namespace topolab::experiment
