#pragma once
// Benchmark names and parameters checked when the experiment file is read, against the agent's
// own table (guest-agent/bench: one definition for the agent and the host), so a misspelt name
// or a string where an integer belongs fails at FILE:LINE before any boot, not in every run.
#include <nlohmann/json.hpp>

#include "common/result.hpp"
#include "orchestrator/run/experiment/experiment_detail.hpp"

namespace topolab::experiment::detail {

// [[benchmark]] params: scalars, and arrays of scalars for list parameters (sizes_kib = [...]).
Result<nlohmann::json> params_to_json(const Ctx& c, const toml::table& t);

// Every [[benchmark]] name is a benchmark the agent knows; its params, and each level of every
// param.* factor that reaches it, pass the agent's own validation.
Result<void> check_benchmark_params(const Ctx& c, const Experiment& e);

}  // namespace topolab::experiment::detail
