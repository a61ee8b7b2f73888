// Placeholder until the 'boot' subcommand is implemented; it refuses to run.
#include <cstdio>

#include "orchestrator/cli/command.hpp"

namespace topolab::cli {
namespace {

class BootCommand : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    return app.add_subcommand("boot", "(not implemented yet)");
  }
  int run() override {
    std::fprintf(stderr, "topolab boot: not implemented yet\n");
    return 2;
  }
};

}  // namespace

std::unique_ptr<Command> make_boot_command() { return std::make_unique<BootCommand>(); }

}  // namespace topolab::cli
