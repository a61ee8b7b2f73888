// Placeholder until the 'run' subcommand is implemented; it refuses to run.
#include <cstdio>

#include "orchestrator/cli/command.hpp"

namespace topolab::cli {
namespace {

class RunCommand : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    return app.add_subcommand("run", "(not implemented yet)");
  }
  int run() override {
    std::fprintf(stderr, "topolab run: not implemented yet\n");
    return 2;
  }
};

}  // namespace

std::unique_ptr<Command> make_run_command() { return std::make_unique<RunCommand>(); }

}  // namespace topolab::cli
