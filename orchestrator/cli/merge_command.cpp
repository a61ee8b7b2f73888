// `topolab merge OUT.db IN.db... [--json]` (issue 30): the union of stores of one experiment
// (shards, or several machines). The rules and refusals are store/store_merge.hpp's.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "common/json_text.hpp"
#include "orchestrator/cli/command.hpp"
#include "orchestrator/results/store/store_merge.hpp"

namespace topolab::cli {
namespace {

class MergeCommand : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    auto* cmd = app.add_subcommand("merge", "Merge results stores of one experiment into OUT");
    cmd->add_option("out", out_, "Store written (created, or merged into when it exists)")
        ->required();
    cmd->add_option("inputs", inputs_, "Stores read (at least one)")->required();
    cmd->add_flag("--json", json_, "Print what was merged as JSON on stdout");
    return cmd;
  }

  int run() override {
    std::vector<std::filesystem::path> inputs(inputs_.begin(), inputs_.end());
    auto merged = store::merge_stores(out_, inputs);
    if (!merged) return fail("merge", merged.error());
    nlohmann::json j = {{"out", out_}, {"inputs", nlohmann::json::array()}};
    for (const auto& m : *merged)
      j["inputs"].push_back({{"store", m.path.string()},
                             {"added", m.added},
                             {"already_present", m.present},
                             {"cells_advanced", m.cells_advanced}});
    if (json_) {
      std::cout << json_document(j) << std::flush;
      return to_int(ExitCode::ok);
    }
    for (const auto& m : *merged) {
      const auto count = [](const std::map<std::string, int>& by, const char* t) {
        auto it = by.find(t);
        return it == by.end() ? 0 : it->second;
      };
      std::printf(
          "%s: %d cells, %d boots, %d runs added (%d runs already in %s), %d cells "
          "advanced\n",
          m.path.c_str(), count(m.added, "cells"), count(m.added, "boots"), count(m.added, "runs"),
          count(m.present, "runs"), out_.c_str(), m.cells_advanced);
    }
    return to_int(ExitCode::ok);
  }

 private:
  std::string out_;
  std::vector<std::string> inputs_;
  bool json_ = false;
};

}  // namespace

std::unique_ptr<Command> make_merge_command() { return std::make_unique<MergeCommand>(); }

}  // namespace topolab::cli
