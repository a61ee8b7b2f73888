// `topolab report STORE [--format table|csv|json|html] [-o FILE] [--experiment NAME]`
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "common/file_io.hpp"
#include "orchestrator/cli/command.hpp"
#include "orchestrator/report/reporter.hpp"
#include "orchestrator/store/result_store.hpp"

namespace topolab::cli {
namespace {

class ReportCommand : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    auto* cmd = app.add_subcommand("report", "Report an experiment's results from a store");
    cmd->add_option("store", store_, "SQLite results store written by `topolab run`")->required();
    cmd->add_option("--format", format_, "table | csv | json | html")
        ->check(CLI::IsMember({"table", "csv", "json", "html"}));
    cmd->add_option("-o,--output", output_, "Write to FILE instead of stdout");
    cmd->add_option("--experiment", experiment_, "Experiment name (when the store holds several)");
    cmd->add_flag("--json", json_, "Same as --format json");
    return cmd;
  }

  int run() override {
    if (json_) format_ = "json";
    auto store = store::ResultStore::open_read_only(store_);
    if (!store) return fail("report", store.error());
    auto data = report::load_report(**store, experiment_);
    if (!data) return fail("report", data.error());
    std::ostringstream text;
    auto reporter = report::make_reporter(format_, text);
    if (!reporter) return fail("report", reporter.error());
    (*reporter)->report(*data);
    // Rows a report leaves out are said on stderr too, so a pipeline notices (exit stays 0).
    for (const auto& w : data->warnings) print_error("report", "warning: " + w);
    if (!data->invalid_runs.empty()) {
      const auto& first = data->invalid_runs.front();
      print_error("report", "warning: " + std::to_string(data->invalid_runs.size()) +
                                " stored run(s) failed validation and are left out (first: run " +
                                std::to_string(first.run_id) + ": " + first.reason + ")");
    }
    if (output_.empty()) {
      std::cout << text.str() << std::flush;
      return 0;
    }
    auto written = write_file_atomic(output_, text.str());
    if (!written) return fail("report", written.error());
    return 0;
  }

 private:
  std::string store_, format_ = "table", output_, experiment_;
  bool json_ = false;
};

}  // namespace

std::unique_ptr<Command> make_report_command() { return std::make_unique<ReportCommand>(); }

}  // namespace topolab::cli
