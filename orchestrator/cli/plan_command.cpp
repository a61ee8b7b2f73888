// Placeholder until the 'plan' subcommand is implemented; it refuses to run.
#include <cstdio>

#include "orchestrator/cli/command.hpp"

namespace topolab::cli {
namespace {

class PlanCommand : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    return app.add_subcommand("plan", "(not implemented yet)");
  }
  int run() override {
    std::fprintf(stderr, "topolab plan: not implemented yet\n");
    return 2;
  }
};

}  // namespace

std::unique_ptr<Command> make_plan_command() { return std::make_unique<PlanCommand>(); }

}  // namespace topolab::cli
