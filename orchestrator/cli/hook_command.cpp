// Placeholder until the 'hook' subcommand is implemented; it refuses to run.
#include <cstdio>

#include "orchestrator/cli/command.hpp"

namespace topolab::cli {
namespace {

class HookCommand : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    return app.add_subcommand("hook", "(not implemented yet)");
  }
  int run() override {
    std::fprintf(stderr, "topolab hook: not implemented yet\n");
    return 2;
  }
};

}  // namespace

std::unique_ptr<Command> make_hook_command() { return std::make_unique<HookCommand>(); }

}  // namespace topolab::cli
