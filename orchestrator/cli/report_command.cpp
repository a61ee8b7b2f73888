// Placeholder until the 'report' subcommand is implemented; it refuses to run.
#include <cstdio>

#include "orchestrator/cli/command.hpp"

namespace topolab::cli {
namespace {

class ReportCommand : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    return app.add_subcommand("report", "(not implemented yet)");
  }
  int run() override {
    std::fprintf(stderr, "topolab report: not implemented yet\n");
    return 2;
  }
};

}  // namespace

std::unique_ptr<Command> make_report_command() { return std::make_unique<ReportCommand>(); }

}  // namespace topolab::cli
