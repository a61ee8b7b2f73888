#pragma once
// The agent's door to guest-agent/bench/ (owned by the bench helper).
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "host/host_topology.hpp"

namespace topolab::agent {

Result<nlohmann::json> run_named_benchmark(const std::string& name, const nlohmann::json& params,
                                           const HostTopology* guest_topology);
std::vector<std::string> known_benchmarks();
int run_benchmark_command(int argc, char** argv);  // argv[0] == "run"

}  // namespace topolab::agent
