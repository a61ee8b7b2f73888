#pragma once
// An experiment file: a layout, factors with levels (full factorial), benchmarks, exclusions,
// a baseline level and how many repetitions. Parsing is strict: unknown keys and bad values are
// errors naming FILE:LINE and what was expected.
#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "common/uri_text.hpp"
#include "orchestrator/model/layout/guest_source.hpp"
#include "orchestrator/run/experiment/boot_settings.hpp"

namespace topolab::experiment {

enum class BackendKind { kGuest, kHost };
std::string to_string(BackendKind);

// What a factor changes. Guest-configuration factors (layout fields, kernel command line)
// need a boot per level; benchmark parameters and guest OS settings (os.*: the agent applies
// them before each run, protocol/guest_settings.hpp) vary inside one booted guest.
// kReplicate: the factor named `replicate` changes nothing, so its cells are the same experiment
// run again (A/A calibration of the verdicts, issue 27).
enum class FactorKind { kLayout, kCmdline, kParam, kReplicate, kOs };

// One setting of the [os] table: held at this value for every run of the experiment.
struct OsConstant {
  std::string name;  // "os.smt"
  nlohmann::json value;
  int line = 0;
};

struct Factor {
  std::string key;    // as written: "expose", "guest.l3_groups", "cmdline.nohz", "param.sqrt.n"
  std::string field;  // canonical_factor_key(key): "expose.as"; one factor per field
  FactorKind kind = FactorKind::kLayout;
  std::vector<nlohmann::json> levels;  // TOML scalars as JSON (string, integer, float, bool)
  int line = 0;
};

struct BenchmarkSpec {
  std::string name;
  nlohmann::json params = nlohmann::json::object();
  int line = 0;
};

// A cell is excluded when every key listed in one rule matches the cell's level.
struct ExcludeRule {
  std::map<std::string, nlohmann::json> match;
  int line = 0;
};

// Add repetitions while a target set is not met (statistics/adaptive.hpp decides), up to
// max_repetitions. Neither set in the file: cv_threshold = 0.05.
struct AdaptiveSpec {
  std::optional<double> cv_threshold;      // CV (stddev/mean) at most this
  std::optional<double> ci_halfwidth_pct;  // the median's 95 % interval half-width at most P %
  int max_repetitions = 10;
};

struct Experiment {
  std::string name;
  std::string description;
  std::filesystem::path source_file;
  std::filesystem::path layout_path;  // resolved against the experiment file's folder
  int repetitions = 3;
  std::vector<Factor> factors;
  std::vector<BenchmarkSpec> benchmarks;
  std::vector<ExcludeRule> excludes;
  std::map<std::string, nlohmann::json> baseline;  // factor key -> baseline level
  std::vector<OsConstant> os_constants;            // [os]
  std::uint64_t seed = 1;
  std::optional<AdaptiveSpec> adaptive;
  BackendKind backend = BackendKind::kGuest;
  int timeout_s = 600;             // per benchmark run
  GuestSource guest;  // [guest] (guest_table.hpp); default: the built-in image
  BootSettings boot;               // [boot]: the boot watchdog's settings (boot_settings.hpp)
  // hosts = [...] (hosts.hpp), or --connect (which wins). Empty: one host, the backend's
  // default connection (today's behaviour). Every cell runs once per host.
  std::vector<std::string> hosts;
  // Who wrote `hosts`: the file's are opened so that nothing prompts on the terminal
  // (virt::ConnectionUri::connect); --connect's as typed.
  UriSource hosts_source = UriSource::command_line;

  // By any spelling of the key ("groups" finds the factor written "guest.l3_groups").
  const Factor* factor(std::string_view key) const;
};

// Bounds checked when the file is parsed: the full factorial expansion (before [[exclude]]) is
// what expand_cells walks, and the runs are what the runner plans and stores. Without them a
// few lines of TOML (20 factors x 10 levels) ask for 10^20 cells and exhaust memory.
inline constexpr std::uint64_t kMaxCells = 100000;
inline constexpr std::uint64_t kMaxRuns = 1000000;
// Product of the factors' level counts (1 without factors), saturating at UINT64_MAX.
std::uint64_t full_factorial_cells(const Experiment&);

// Display form of a level: strings as is, numbers/bools as TOML writes them.
std::string level_text(const nlohmann::json& level);

// Command-line overrides of the file's values. They are applied inside the parser, before the
// size limits are checked (a --repetitions applied afterwards once let 10^9 runs through).
struct Overrides {
  std::optional<int> repetitions;  // 1..1000, like the file's key
  std::optional<std::uint64_t> seed;
  std::vector<std::string> hosts;  // --connect URI (repeatable); replaces the file's hosts
};

// base_dir resolves the relative layout path; origin names the file in error messages.
Result<Experiment> parse_experiment(std::string_view toml, const std::string& origin,
                                    const std::filesystem::path& base_dir,
                                    const Overrides& overrides = {});
Result<Experiment> load_experiment_file(const std::filesystem::path& path,
                                        const Overrides& overrides = {});

// Factor keys are canonical: layout fields by their file key (layout_field_key: "groups" and
// "guest.l3_groups" are one factor), cmdline./param. keys as written. Used for [factors],
// [baseline] and [[exclude]] alike.
std::string canonical_factor_key(const std::string& key);
// Levels match by type and value: "1" (a string) is not the integer 1.
bool same_level(const nlohmann::json& a, const nlohmann::json& b);

// The experiment as JSON (stored with the results so a report knows the design).
nlohmann::json experiment_to_json(const Experiment&);

}  // namespace topolab::experiment
