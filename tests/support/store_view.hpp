#pragma once
// What a test reads back from a store that `topolab run` wrote: the cells of its only
// experiment by label, their stored runs and failures, and its boots. Tests poll it while a
// run writes, so a store or experiment that is not there yet reads as empty, not as an error.
#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "orchestrator/results/store/result_store.hpp"

namespace topolab::testing {

struct StoreView {
  // By cell label: a single-host experiment (a multi-host one repeats a label per host).
  std::map<std::string, store::StoredCell> cells;
  std::map<std::string, int> runs;                           // stored runs by label; -1: unread
  std::map<std::string, std::vector<std::string>> failures;  // by label
  std::vector<store::StoredBoot> boots;
  int total_runs = 0;

  int failure_count() const {
    int n = 0;
    for (const auto& [label, list] : failures) n += static_cast<int>(list.size());
    return n;
  }
  int cells_with_status(std::string_view status) const {
    return static_cast<int>(std::count_if(
        cells.begin(), cells.end(), [&](const auto& c) { return c.second.status == status; }));
  }
};

inline StoreView read_store(const std::filesystem::path& db) {
  StoreView v;
  auto s = store::ResultStore::open_read_only(db);
  if (!s) return v;
  auto exps = (*s)->experiments();
  if (!exps || exps->empty()) return v;
  auto cells = (*s)->cells((*exps)[0].id);
  if (!cells) return v;
  for (const auto& c : *cells) {
    v.cells[c.cell.label] = c;
    auto runs = (*s)->runs(c.id);
    v.runs[c.cell.label] = runs ? static_cast<int>(runs->size()) : -1;
    v.total_runs += runs ? static_cast<int>(runs->size()) : 0;
    auto f = (*s)->failures(c.id);
    if (f) v.failures[c.cell.label] = *f;
  }
  auto boots = (*s)->boots((*exps)[0].id);
  if (boots) v.boots = *boots;
  return v;
}

}  // namespace topolab::testing
