// Placeholder until the 'apply' subcommand is implemented; it refuses to run.
#include <cstdio>

#include "orchestrator/cli/command.hpp"

namespace topolab::cli {
namespace {

class ApplyCommand : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    return app.add_subcommand("apply", "(not implemented yet)");
  }
  int run() override {
    std::fprintf(stderr, "topolab apply: not implemented yet\n");
    return 2;
  }
};

}  // namespace

std::unique_ptr<Command> make_apply_command() { return std::make_unique<ApplyCommand>(); }

}  // namespace topolab::cli
