#pragma once
// Shards (issue 30): the K-th of N deterministic parts of an experiment, split by guest
// configuration so the cells of one boot stay together. Unit i (in the expansion's order,
// 0-based) belongs to shard (i mod N) + 1: round robin spreads units of neighbouring levels
// (often of similar cost) over the shards. A unit is a configuration; with backend "host",
// whose one configuration boots nothing, a unit is a cell. A shard never holds zero units: N
// above the number of units is refused.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "orchestrator/run/experiment/experiment.hpp"
#include "orchestrator/run/experiment/matrix.hpp"

namespace topolab::experiment {

struct Shard {
  int index = 1;  // 1..count
  int count = 1;  // 1: the whole experiment
  bool whole() const { return count == 1; }
  std::string text() const { return std::to_string(index) + "/" + std::to_string(count); }
};

// More shards than this is a typo, not a cluster (and bounds the --list-shards output).
constexpr int kMaxShards = 10000;

// "K/N" with 1 <= K <= N <= kMaxShards, digits only.
Result<Shard> parse_shard(const std::string& text);
// A shard count N alone (--list-shards N, slurm --shards N).
Result<int> parse_shard_count(const std::string& text);

// The configurations of `shard` (with backend "host": holding only the shard's cells); refused
// (naming the experiment file) when the experiment has fewer units than shards.
Result<std::vector<Configuration>> shard_configurations(const Experiment&,
                                                        const std::vector<Configuration>& all,
                                                        const Shard& shard);

// [{"shard":"1/3","configurations":[label...],"cells":[label...]}, ...]
Result<nlohmann::json> shard_listing(const Experiment&, const std::vector<Cell>& cells,
                                     const std::vector<Configuration>& configs, int count);

}  // namespace topolab::experiment
