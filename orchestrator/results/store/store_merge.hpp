#pragma once
// `topolab merge OUT IN...` (issue 30): the union of stores of one experiment (shards of a
// Slurm job array, or two machines' runs). Rows are copied table by table with their column
// lists read from each input's schema (a column added later is copied without a change here);
// every table an input holds needs a rule below (store_merge.cpp), so a new table without one
// refuses the merge instead of being dropped. Ids are renumbered; references follow.
//
// Refused, with OUT untouched (the merge is built in a temporary file renamed over OUT): inputs
// of a schema other than the newest, the same file twice (or OUT among the inputs), experiments
// of one name whose definitions differ (naming the first difference), a run (cell, benchmark,
// repetition) present twice with different content, a cell whose definition differs.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "common/result.hpp"

namespace topolab::store {

struct MergedInput {
  std::filesystem::path path;
  std::map<std::string, int> added;    // table -> rows copied into OUT
  std::map<std::string, int> present;  // table -> rows OUT already held (identical)
  int cells_advanced = 0;  // cells whose status the input carried further (pending -> done)
};

// At most this many inputs: one per shard of a large array.
constexpr std::size_t kMaxMergeInputs = 10000;

Result<std::vector<MergedInput>> merge_stores(const std::filesystem::path& out,
                                              const std::vector<std::filesystem::path>& inputs);

// The tables merge knows how to copy, in copy order (tests check a new store has no other).
std::vector<std::string> merged_tables();

}  // namespace topolab::store
