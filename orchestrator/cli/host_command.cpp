// Placeholder until the 'host' subcommand is implemented; it refuses to run.
#include <cstdio>

#include "orchestrator/cli/command.hpp"

namespace topolab::cli {
namespace {

class HostCommand : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    return app.add_subcommand("host", "(not implemented yet)");
  }
  int run() override {
    std::fprintf(stderr, "topolab host: not implemented yet\n");
    return 2;
  }
};

}  // namespace

std::unique_ptr<Command> make_host_command() { return std::make_unique<HostCommand>(); }

}  // namespace topolab::cli
