#pragma once
// An experiment over the test disk for `topolab run` (issue 14): the two-groups example layout
// under a name of the test's own (so its topolab- domains are told from other tests'), 2
// exposures x 1 sqrt benchmark x 2 repetitions, [guest] disk = the image; and what a test reads
// back from the store.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "orchestrator/store/result_store.hpp"

namespace topolab::testing {

// Writes dir/layout.toml (named `layout_name`) and dir/exp.toml; returns exp.toml's path.
inline std::filesystem::path write_disk_experiment(const std::filesystem::path& dir,
                                                   const std::string& layout_name,
                                                   const std::filesystem::path& image,
                                                   const std::string& sqrt_params) {
  std::ifstream in(std::string(TOPOLAB_SOURCE_DIR) + "/examples/layouts/two-groups.toml");
  std::stringstream layout;
  layout << in.rdbuf();
  std::string text = layout.str();
  const std::string from = "name = \"two-groups\"";
  text.replace(text.find(from), from.size(), "name = \"" + layout_name + "\"");
  std::ofstream(dir / "layout.toml") << text;
  std::ofstream(dir / "exp.toml")
      << "name = \"it-owndisk\"\nlayout = \"layout.toml\"\nrepetitions = 2\nseed = 3\n"
         "timeout_s = 300\n[guest]\ndisk = \""
      << image.string()
      << "\"\nos = \"linux\"\n[factors]\nexpose = [\"flat\", \"sockets\"]\n[[benchmark]]\n"
         "name = \"sqrt\"\nparams = "
      << sqrt_params << "\n";
  return dir / "exp.toml";
}

// Stored runs per cell label of the store's only experiment ({} when there is none yet), and
// the cells' statuses.
struct StoredRuns {
  std::vector<std::string> labels, statuses;
  std::vector<int> runs;
  int total = 0;
};

inline StoredRuns stored_runs(const std::filesystem::path& db) {
  StoredRuns v;
  auto s = store::ResultStore::open_read_only(db);
  if (!s) return v;
  auto exps = (*s)->experiments();
  if (!exps || exps->empty()) return v;
  auto cells = (*s)->cells((*exps)[0].id);
  if (!cells) return v;
  for (const auto& c : *cells) {
    auto runs = (*s)->runs(c.id);
    const int n = runs ? static_cast<int>(runs->size()) : 0;
    v.labels.push_back(c.cell.label);
    v.statuses.push_back(c.status);
    v.runs.push_back(n);
    v.total += n;
  }
  return v;
}

}  // namespace topolab::testing
