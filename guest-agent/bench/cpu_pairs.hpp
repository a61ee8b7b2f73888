#pragma once
// The CPU pairs a pairwise benchmark (c2c-latency, migration) measures, planned in one place
// so both name, order and bound their pairs alike.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "common/cpu_list.hpp"
#include "common/result.hpp"

namespace topolab::bench {

using CpuPairs = std::vector<std::pair<int, int>>;

// Rows in one result of a pairwise benchmark; keeps the reply under the agent's line cap.
constexpr std::size_t kMaxCpuPairs = 4096;

// The pairs of `cpus` for the `pairs` parameter: "first" is the first CPU against each other
// one, anything else ("all") every unordered pair (a before b in list order), row by row.
// Refused (input) when more than `max_pairs`, counted before the list is built: 8192 CPUs
// would be 33 million pairs.
Result<CpuPairs> plan_cpu_pairs(const std::string& benchmark, const CpuList& cpus,
                                const std::string& pairs, std::size_t max_pairs = kMaxCpuPairs);

}  // namespace topolab::bench
