#pragma once
// Internal to orchestrator/run/experiment: the TOML helpers experiment.cpp, experiment_factors.cpp
// and experiment_checks.cpp share, the [factors] / [baseline] / [[exclude]] readers and the
// checks across keys.
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "common/result.hpp"
#include "orchestrator/model/layout/toml_parse.hpp"
#include "orchestrator/run/experiment/experiment.hpp"

namespace topolab::experiment::detail {

// Errors carry FILE:LINE of the offending node.
struct Ctx {
  std::string origin;
  Error at(const toml::node& n, const std::string& msg) const {
    return make_error(ErrorKind::input,
                      origin + ":" + std::to_string(n.source().begin.line) + ": " + msg);
  }
  Error at_line(int line, const std::string& msg) const {
    return make_error(ErrorKind::input, origin + ":" + std::to_string(line) + ": " + msg);
  }
};

inline int line_of(const toml::node& n) { return static_cast<int>(n.source().begin.line); }

// A string, integer, finite float or boolean as JSON.
Result<nlohmann::json> scalar_to_json(const Ctx& c, const toml::node& n, const std::string& what);
Result<nlohmann::json> table_to_json(const Ctx& c, const toml::table& t, const std::string& what);

// Where each canonical key was first written: a second spelling of it ("guest.l3_groups" quoted
// and dotted, or "groups") would silently make two factors of one field.
using KeyLines = std::map<std::string, std::pair<std::string, int>>;

// [factors]: every factor with its levels, keys canonical, layout levels checked by their field.
Result<void> collect_factors(const Ctx& c, const toml::table& t, const std::string& prefix,
                             int depth, KeyLines& seen, std::vector<Factor>& out);
// [baseline] or one [[exclude]]: factor -> the factor's own level.
Result<std::map<std::string, nlohmann::json>> factor_levels(const Ctx& c, const toml::table& t,
                                                            const Experiment& e,
                                                            const std::string& what);

// The checks across keys (experiment_checks.cpp), once every key of the file is read.
Result<void> check_params_factors(const Ctx& c, const Experiment& e);  // param.BENCH.* named
Result<void> check_os_settings(const Ctx& c, const Experiment& e);     // of the guest's OS
Result<void> check_size_limits(const Ctx& c, int factors_line, const Experiment& e,
                               bool reps_from_cli);  // kMaxCells, kMaxRuns

}  // namespace topolab::experiment::detail
